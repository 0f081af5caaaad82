// P17 (docs/rules.md): the catalog, read from the one catalog file shared
// by every implementation, {"version":1,"servers":[entry…]}, with
// {workspace} resolved, `installed` and `runtimeOk`, empty fields omitted.

import { readFileSync } from "node:fs";

import { lookPath } from "./lookpath.js";

export interface CatalogEntry {
  id: string;
  name: string;
  category: string;
  description: string;
  homepage: string;
  runtime: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  secrets: string[];
}

const text = (v: unknown) => (typeof v === "string" ? v : "");
const texts = (v: unknown) => (Array.isArray(v) ? v.map(text) : []);

function entryOf(e: Record<string, unknown>): CatalogEntry {
  const env = e.env !== null && typeof e.env === "object" && !Array.isArray(e.env) ? e.env : {};
  return {
    id: text(e.id),
    name: text(e.name),
    category: text(e.category),
    description: text(e.description),
    homepage: text(e.homepage),
    runtime: text(e.runtime),
    command: text(e.command),
    args: texts(e.args),
    env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, text(v)])),
    secrets: texts(e.secrets),
  };
}

/** loadCatalog reads the catalog file's entries, in file order (P17.1). */
export function loadCatalog(path: string): CatalogEntry[] {
  const raw = JSON.parse(readFileSync(path, "utf8")) as { servers?: unknown } | null;
  if (raw === null || typeof raw !== "object" || !Array.isArray(raw.servers)) {
    throw new Error(`catalog ${path}: want {"version":1,"servers":[…]}`);
  }
  return raw.servers.map((e) => entryOf(e !== null && typeof e === "object" ? (e as Record<string, unknown>) : {}));
}

// P17.4: the launcher of each runtime; any other runtime is always ok.
const LAUNCHERS = new Map([
  ["node", "npx"],
  ["python", "uvx"],
]);

/**
 * catalogAnswer lists every entry with {workspace} replaced in args and env
 * values (P17.2), installed (P17.3) and runtimeOk (P17.4), each empty
 * homepage, runtime, args, env and secrets omitted (P17.5).
 */
export function catalogAnswer(entries: CatalogEntry[], workspace: string, configured: (id: string) => boolean): unknown[] {
  const resolve = (s: string) => s.split("{workspace}").join(workspace);
  const found = new Map<string, boolean>();
  const runtimeOk = (runtime: string) => {
    const launcher = LAUNCHERS.get(runtime);
    if (launcher === undefined) return true;
    if (!found.has(launcher)) found.set(launcher, lookPath(launcher) !== undefined);
    return found.get(launcher)!;
  };
  return entries.map((e) => {
    const out: Record<string, unknown> = { id: e.id, name: e.name, category: e.category, description: e.description };
    if (e.homepage !== "") out.homepage = e.homepage;
    if (e.runtime !== "") out.runtime = e.runtime;
    out.command = e.command;
    if (e.args.length > 0) out.args = e.args.map(resolve);
    const env = Object.entries(e.env);
    if (env.length > 0) out.env = Object.fromEntries(env.map(([k, v]) => [k, resolve(v)]));
    if (e.secrets.length > 0) out.secrets = e.secrets;
    out.installed = configured(e.id);
    out.runtimeOk = runtimeOk(e.runtime);
    return out;
  });
}
