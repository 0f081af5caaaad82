// A tools/call result as the server wrote it (P11.4–P11.6, docs/rules.md).
//
// The SDK parses every message with JSON.parse and checks it against its
// schema before the client sees it: a `null` result, or one whose `_meta`
// is not an object, never reaches the caller, and a parsed result has lost
// what the go-sdk's reading depends on (a member given twice, a number as
// written: `1e3` is not an int64). So the transports (src/stdio.ts,
// src/http.ts) hand the SDK each answer to a tools/call of theirs with its
// result replaced by `{"resultType":"complete","content":[],"<RAW_RESULT>":
// "<the result's text>"}`, which the SDK lets through in either era (the
// 2026-07-28 era's schema wants a resultType and content), and the call
// reads that text (src/results.ts). In the 2026-07-28 era, where the SDK
// checks a tools/list result against that era's schema (a tool without
// inputSchema fails the whole list), an answer to a tools/list is handed
// over so too, and read as JSON (P8). Nothing else of a message is changed.

import { JNumber, JObject, JValue, parseOrdered, spans } from "./ordered.js";

/** RAW_RESULT is the member that carries a tools/call result's text. */
export const RAW_RESULT = "mcpparity/raw-result";

// The members a marked result has besides its text, by method: what the
// SDK's schemas of either era want of it.
const WRAPPERS: Record<string, string> = {
  "tools/call": `"resultType":"complete","content":[]`,
  "tools/list": `"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[]`,
};

/** RequestKey is how a request's id is keyed: its JSON text. */
export function requestKey(id: unknown): string {
  return JSON.stringify(id);
}

/**
 * markResponses rewrites a message text (one message, or a batch) whose
 * answers to the requests methodOf names (by request key: tools/call,
 * tools/list) carry their result as text; undefined when there is nothing
 * to rewrite (or the text is not JSON: the SDK then reports it as it does).
 */
export function markResponses(text: string, methodOf: (key: string) => string | undefined): string | undefined {
  const top = spans(text);
  if (top === undefined) return undefined;
  if ("members" in top) return markResponse(top.members, methodOf);
  if (!("elements" in top)) return undefined;
  let changed = false;
  const out = top.elements.map((e) => {
    const m = spans(e);
    const marked = m !== undefined && "members" in m ? markResponse(m.members, methodOf) : undefined;
    if (marked === undefined) return e;
    changed = true;
    return marked;
  });
  return changed ? `[${out.join(",")}]` : undefined;
}

function markResponse(members: [string, string][], methodOf: (key: string) => string | undefined): string | undefined {
  const last = (name: string) => members.filter(([k]) => k === name).pop()?.[1];
  const id = last("id");
  const result = last("result");
  if (id === undefined || result === undefined || members.some(([k]) => k === "method" || k === "error")) return undefined;
  const wrapper = WRAPPERS[methodOf(requestKey(JSON.parse(id))) ?? ""];
  if (wrapper === undefined) return undefined;
  const kept = members.filter(([k]) => k !== "result").map(([k, v]) => `${JSON.stringify(k)}:${v}`);
  kept.push(`"result":{${wrapper},${JSON.stringify(RAW_RESULT)}:${JSON.stringify(result)}}`);
  return `{${kept.join(",")}}`;
}

/**
 * rawResultOf gives back a call's result as written: the text the
 * transport put in it, read in order; a result that came without it (no
 * transport of this port sends one so) is taken as the SDK parsed it.
 */
export function rawResultOf(result: Record<string, unknown>): JValue {
  const text = result[RAW_RESULT];
  if (typeof text === "string") {
    const v = parseOrdered(text);
    if (v !== undefined) return v;
  }
  return toJValue(result);
}

/**
 * listResultOf gives back a tools/list result as JSON reads it: the text
 * the transport put in it (an object, or {} for any other value), or the
 * result as the SDK parsed it when it came without.
 */
export function listResultOf(result: Record<string, unknown>): Record<string, unknown> {
  const text = result[RAW_RESULT];
  if (typeof text !== "string") return result;
  const v: unknown = JSON.parse(text);
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function toJValue(v: unknown): JValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return new JNumber(String(v));
  if (Array.isArray(v)) return v.map(toJValue);
  return new JObject(Object.entries(v as object).map(([k, e]) => [k, toJValue(e)]));
}

// SSE line ends: CRLF, LF or CR.
const LINE_END = /\r\n|\r|\n/g;

/**
 * markEvents rewrites an SSE stream as markResponses rewrites a message:
 * each event's data (its `data` lines joined by "\n") is given to rewrite;
 * an event it rewrites is written again with the new data, its other lines
 * as they were; every other line passes as it is. An event is written when
 * its blank line comes, as an SSE reader dispatches it.
 */
export function markEvents(rewrite: (data: string) => string | undefined): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let text = ""; // received, not yet split into lines
  let event: string[] = []; // the lines of the event being read
  const dispatch = (controller: TransformStreamDefaultController<Uint8Array>) => {
    const data = event.filter(isData).map(dataValue);
    const marked = data.length > 0 ? rewrite(data.join("\n")) : undefined;
    const lines = marked === undefined ? event : [...event.filter((l) => !isData(l)), ...marked.split("\n").map((l) => `data: ${l}`)];
    controller.enqueue(encoder.encode(lines.map((l) => `${l}\n`).join("") + "\n"));
    event = [];
  };
  const lines = (controller: TransformStreamDefaultController<Uint8Array>, final: boolean) => {
    let start = 0;
    LINE_END.lastIndex = 0;
    for (let m = LINE_END.exec(text); m !== null; m = LINE_END.exec(text)) {
      // a CR last may be the first half of a CRLF still to come
      if (!final && m[0] === "\r" && m.index === text.length - 1) break;
      const line = text.slice(start, m.index);
      start = m.index + m[0].length;
      if (line === "") dispatch(controller);
      else event.push(line);
    }
    text = text.slice(start);
  };
  return new TransformStream({
    transform(chunk, controller) {
      text += decoder.decode(chunk, { stream: true });
      lines(controller, false);
    },
    flush(controller) {
      text += decoder.decode();
      lines(controller, true);
      // an event without its blank line, and a last line without its end,
      // pass as they came (an SSE reader drops them)
      const rest = event.map((l) => `${l}\n`).join("") + text;
      if (rest !== "") controller.enqueue(encoder.encode(rest));
    },
  });
}

function field(line: string): string {
  const colon = line.indexOf(":");
  return colon < 0 ? line : line.slice(0, colon);
}

function isData(line: string): boolean {
  return field(line) === "data";
}

function dataValue(line: string): string {
  const colon = line.indexOf(":");
  if (colon < 0) return "";
  const v = line.slice(colon + 1);
  return v.startsWith(" ") ? v.slice(1) : v;
}
