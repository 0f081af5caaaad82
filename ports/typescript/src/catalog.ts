// P17 (docs/rules.md): the catalog, read from the one catalog file shared
// by every implementation, with {workspace} resolved, `installed` and
// `runtimeOk`.

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

/** loadCatalog reads the catalog file: an array of entries, in file order. */
export function loadCatalog(path: string): CatalogEntry[] {
  const raw = JSON.parse(readFileSync(path, "utf8")) as unknown;
  if (!Array.isArray(raw)) throw new Error(`catalog ${path}: not an array`);
  return raw.map((e: Record<string, unknown>) => ({
    id: String(e.id ?? ""),
    name: String(e.name ?? ""),
    category: String(e.category ?? ""),
    description: String(e.description ?? ""),
    homepage: String(e.homepage ?? ""),
    runtime: String(e.runtime ?? ""),
    command: String(e.command ?? ""),
    args: Array.isArray(e.args) ? e.args.map(String) : [],
    env: e.env && typeof e.env === "object" ? Object.fromEntries(Object.entries(e.env).map(([k, v]) => [k, String(v)])) : {},
    secrets: Array.isArray(e.secrets) ? e.secrets.map(String) : [],
  }));
}

// P17: the launcher of each runtime; another runtime is never ok.
const LAUNCHERS: Record<string, string> = { node: "npx", python: "uvx" };

/**
 * catalogAnswer lists every entry with {workspace} replaced in args and env
 * values, installed (a server is configured under the entry's id) and
 * runtimeOk (the runtime's launcher is on PATH).
 */
export function catalogAnswer(entries: CatalogEntry[], workspace: string, configured: (id: string) => boolean): unknown[] {
  const resolve = (s: string) => s.split("{workspace}").join(workspace);
  return entries.map((e) => {
    const launcher = Object.prototype.hasOwnProperty.call(LAUNCHERS, e.runtime) ? LAUNCHERS[e.runtime] : undefined;
    return {
      id: e.id,
      name: e.name,
      category: e.category,
      description: e.description,
      homepage: e.homepage,
      runtime: e.runtime,
      command: e.command,
      args: e.args.map(resolve),
      env: Object.fromEntries(Object.entries(e.env).map(([k, v]) => [k, resolve(v)])),
      secrets: e.secrets,
      installed: configured(e.id),
      runtimeOk: launcher !== undefined && lookPath(launcher) !== undefined,
    };
  });
}
