// Reading the stored configuration (C1, C8.3, C8.4, docs/rules.md) as Go's
// encoding/json decodes it into a map of servers: field names matched
// without regard to letter case, unknown fields ignored, the last of a
// duplicated key winning, null a no-op, and the servers decoded before the
// first that fails kept; anything else reads as no servers.

import { Config, ServerConfig, emptyServer } from "./config.js";
import { JObject, JValue, parseOrdered } from "./ordered.js";

/** decodeConfig reads a stored value; it never fails (C8.4). */
export function decodeConfig(text: string): Config {
  const cfg: Config = new Map();
  const top = parseOrdered(text);
  if (!(top instanceof JObject)) return cfg; // not JSON, or not an object
  for (const [name, v] of top.entries) {
    const s = decodeServer(v);
    if (s === undefined) break; // C8.4: the servers before the first that fails
    cfg.set(name, s);
  }
  return cfg;
}

/** Bad is a value of the wrong type for its field. */
class Bad extends Error {}

/**
 * foldKey folds a field name as Go matches it (bytes.EqualFold): ASCII
 * letters by case, and the two non-ASCII letters that fold to ASCII ones.
 */
export function foldKey(k: string): string {
  return k.replace(/[A-Z\u017f\u212a]/g, (c) => (c === "\u017f" ? "s" : c === "\u212a" ? "k" : c.toLowerCase()));
}

type Field = (s: ServerConfig, v: JValue) => void;

const FIELDS: Record<string, Field> = {
  command: (s, v) => (s.command = str(v, s.command)),
  args: (s, v) => (s.args = list(v)),
  env: (s, v) => (s.env = map(v, s.env)),
  url: (s, v) => (s.url = str(v, s.url)),
  headers: (s, v) => (s.headers = map(v, s.headers)),
  enabled: (s, v) => {
    if (v === null) return;
    if (typeof v !== "boolean") throw new Bad();
    s.enabled = v;
  },
  disabledtools: (s, v) => (s.disabledTools = list(v)),
};

/**
 * decodeServer reads one server; undefined when it does not decode. C1:
 * without an "enabled" key (matched exactly) the server is enabled; with
 * one, its value (null leaves false).
 */
export function decodeServer(v: JValue): ServerConfig | undefined {
  const s = emptyServer();
  if (v === null) return s;
  if (!(v instanceof JObject)) return undefined;
  s.enabled = false;
  try {
    for (const [k, e] of v.entries) {
      const f = FIELDS[foldKey(k)];
      if (f) f(s, e);
    }
  } catch (e) {
    if (e instanceof Bad) return undefined;
    throw e;
  }
  if (!v.entries.some(([k]) => k === "enabled")) s.enabled = true; // C1.1
  return s;
}

function str(v: JValue, old: string): string {
  if (v === null) return old;
  if (typeof v !== "string") throw new Bad();
  return v;
}

function list(v: JValue): string[] {
  if (v === null) return [];
  if (!Array.isArray(v)) throw new Bad();
  return v.map((e) => str(e, ""));
}

/** map decodes into the map already there, as Go does for a duplicated key. */
function map(v: JValue, old: Record<string, string>): Record<string, string> {
  if (v === null) return {};
  if (!(v instanceof JObject)) throw new Bad();
  const out: Record<string, string> = { ...old };
  for (const [k, e] of v.entries) {
    Object.defineProperty(out, k, { value: str(e, ""), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
