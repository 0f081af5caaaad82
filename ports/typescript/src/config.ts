// The configuration of the pool (C1–C8, docs/rules.md): servers, their
// transport, their validation, and the JSON form they are stored in
// (reading it: src/stored.ts).

import { quote } from "./gojson.js";
import { isBlank, sortedNames } from "./text.js";

export interface ServerConfig {
  command: string;
  args: string[];
  env: Record<string, string>;
  url: string;
  headers: Record<string, string>;
  enabled: boolean;
  disabledTools: string[];
}

/** Config is the stored configuration: name → server. */
export type Config = Map<string, ServerConfig>;

export type Transport = "stdio" | "http" | "";

// C3 (docs/rules.md)
export const ERR_BOTH = "un serveur MCP ne peut avoir à la fois 'command' (stdio) et 'url' (http)";
export const ERR_NEITHER = "un serveur MCP doit avoir soit 'command' (stdio) soit 'url' (http)";

/** transportOf is C2: a command not blank means stdio, else a url not blank means http. */
export function transportOf(s: ServerConfig): Transport {
  if (!isBlank(s.command)) return "stdio";
  if (!isBlank(s.url)) return "http";
  return "";
}

/** validate is C3, for a save (C4.5): the error text, or "" for a valid server. */
export function validate(s: ServerConfig): string {
  const cmd = !isBlank(s.command);
  const url = !isBlank(s.url);
  if (cmd && url) return ERR_BOTH;
  if (!cmd && !url) return ERR_NEITHER;
  return "";
}

/** wantsSession: enabled, with a transport (P8.1, P16.2); the status validates nothing (P16.6). */
export function wantsSession(s: ServerConfig): boolean {
  return s.enabled && transportOf(s) !== "";
}

export function emptyServer(): ServerConfig {
  return { command: "", args: [], env: {}, url: "", headers: {}, enabled: true, disabledTools: [] };
}

export function kind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  switch (typeof v) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    default:
      return "an object";
  }
}

// In the lists and maps of strings of a request body, null reads as "".
const strOrNull = (e: unknown) => typeof e === "string" || e === null;

export function strList(v: unknown, where: string, E: new (m: string) => Error): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every(strOrNull)) {
    throw new E(`${where} is not an array of strings`);
  }
  return v.map((e) => e ?? "");
}

export function strMap(v: unknown, where: string, E: new (m: string) => Error): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== "object" || Array.isArray(v) || !Object.values(v).every(strOrNull)) {
    throw new E(`${where} is not an object of strings`);
  }
  const out: Record<string, string> = {};
  for (const [k, e] of Object.entries(v)) {
    Object.defineProperty(out, k, { value: e ?? "", enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * serializeConfig writes the stored form (C8): names in sorted order,
 * fields in the order command, args, env, url, headers, enabled,
 * disabledTools, each omitted when empty except enabled; strings escaped
 * as Go writes them. Written by hand: a JavaScript object would put
 * integer-like names first.
 */
export function serializeConfig(cfg: Config): string {
  const q = quote;
  const list = (l: string[]) => "[" + l.map(q).join(",") + "]";
  const map = (m: Record<string, string>) =>
    "{" + sortedNames(Object.keys(m)).map((k) => q(k) + ":" + q(m[k])).join(",") + "}";
  const servers = sortedNames(cfg.keys()).map((name) => {
    const s = cfg.get(name)!;
    const f: string[] = [];
    if (s.command !== "") f.push('"command":' + q(s.command));
    if (s.args.length > 0) f.push('"args":' + list(s.args));
    if (Object.keys(s.env).length > 0) f.push('"env":' + map(s.env));
    if (s.url !== "") f.push('"url":' + q(s.url));
    if (Object.keys(s.headers).length > 0) f.push('"headers":' + map(s.headers));
    f.push('"enabled":' + (s.enabled ? "true" : "false"));
    if (s.disabledTools.length > 0) f.push('"disabledTools":' + list(s.disabledTools));
    return q(name) + ":{" + f.join(",") + "}";
  });
  return "{" + servers.join(",") + "}";
}
