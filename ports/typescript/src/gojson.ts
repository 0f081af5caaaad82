// The JSON text the rules ask for where a value becomes text ("JSON forms",
// docs/rules.md): compact, object keys in UTF-8 byte order at every depth,
// <, >, & and U+2028, U+2029 escaped, numbers in their shortest form;
// content blocks keep their own field order (Ordered; their forms are in
// src/results.ts).

import { compareUTF8 } from "./text.js";

/** quote writes a JSON string with the escapes of the JSON forms. */
export function quote(s: string): string {
  // Escapes are matched whole (\\. included), so that an escaped backslash
  // followed by "u..." is not taken for a \u escape.
  return JSON.stringify(s).replace(/\\u[dD][89abAB][0-9a-fA-F]{2}|\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\.|[<>&\u2028\u2029]/g, (m) => {
    if (m.length === 2) return m;
    switch (m) {
      case "<":
        return "\\u003c";
      case ">":
        return "\\u003e";
      case "&":
        return "\\u0026";
      case "\u2028":
        return "\\u2028";
      case "\u2029":
        return "\\u2029";
      default:
        // A lone surrogate (JSON.stringify escapes only unpaired ones) is
        // not valid UTF-8 text: it is written as the replacement character.
        return "\ufffd";
    }
  });
}

/** number writes a JSON number in its shortest form (1e+21, 1e-7). */
export function number(n: number): string {
  if (!Number.isFinite(n)) return "null";
  if (Object.is(n, -0)) return "-0";
  return String(n);
}

/** marshal writes v compactly, object keys sorted at every depth. */
export function marshal(v: unknown): string {
  return write(v, "", "");
}

/**
 * marshalIndent writes v with two spaces per level and ": " after keys
 * (P11's structured content).
 */
export function marshalIndent(v: unknown): string {
  return write(v, "\n", "  ");
}

function write(v: unknown, nl: string, indent: string): string {
  const out: string[] = [];
  const walk = (x: unknown, depth: number): void => {
    if (x === null || x === undefined) {
      out.push("null");
    } else if (typeof x === "string") {
      out.push(quote(x));
    } else if (typeof x === "number") {
      out.push(number(x));
    } else if (typeof x === "bigint") {
      out.push(x.toString()); // an int64 (a block's size)
    } else if (typeof x === "boolean") {
      out.push(x ? "true" : "false");
    } else if (Array.isArray(x)) {
      if (x.length === 0) {
        out.push("[]");
        return;
      }
      out.push("[");
      x.forEach((e, i) => {
        if (i > 0) out.push(",");
        out.push(nl, indent.repeat(depth + 1));
        walk(e, depth + 1);
      });
      out.push(nl, indent.repeat(depth), "]");
    } else if (x instanceof Ordered) {
      object(x.entries, depth);
    } else if (typeof x === "object") {
      const keys = Object.keys(x as object).sort(compareUTF8);
      object(keys.map((k) => [k, (x as Record<string, unknown>)[k]] as [string, unknown]), depth);
    } else {
      out.push("null");
    }
  };
  const object = (entries: [string, unknown][], depth: number): void => {
    if (entries.length === 0) {
      out.push("{}");
      return;
    }
    out.push("{");
    entries.forEach(([k, e], i) => {
      if (i > 0) out.push(",");
      out.push(nl, indent.repeat(depth + 1), quote(k), nl === "" ? ":" : ": ");
      walk(e, depth + 1);
    });
    out.push(nl, indent.repeat(depth), "}");
  };
  walk(v, 0);
  return out.join("");
}

/** Ordered is an object whose fields are written in the given order. */
export class Ordered {
  constructor(readonly entries: [string, unknown][]) {}
}
