// What the routes do (docs/contract.md, docs/rules.md): status (P16),
// tools (P8, P14), calls (src/calls.ts), the changes (C4–C7) and the
// catalog (P17), over the store and the pool.

import { call } from "./calls.js";
import { catalogAnswer, loadCatalog } from "./catalog.js";
import { Config, ServerConfig, transportOf, validate, wantsSession } from "./config.js";
import { Attempt, Pool } from "./pool.js";
import { label, promptLine, toolEntry } from "./rules.js";
import { Store } from "./store.js";
import { sortedNames, trimSpace } from "./text.js";

/** Refused is a refused request: its status and its error text. */
export class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

// Texts of the rules (docs/rules.md).
const ERR_EMPTY_NAME = "nom de serveur vide";
const ERR_RESERVED = "le nom ne peut pas contenir '__' (réservé au namespacing des outils)";
const unknownServer = (name: string) => `serveur MCP inconnu: ${name}`;

export interface SaveRequest {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  url: string;
  headers: Record<string, string>;
  enabled: boolean | undefined;
}

/** A simple queue: changes of the store happen one at a time. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(f: () => Promise<T> | T): Promise<T> {
    const next = this.tail.then(f, f);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** What a server's attempt gave a status or tools request: its attempt, or why it has none. */
type Reached = Attempt | Error;

export class Service {
  private readonly mutex = new Mutex();

  constructor(
    readonly store: Store,
    readonly pool: Pool,
    readonly catalogFile: string,
    readonly workspace: string,
  ) {}

  /** connectAll attempts every server that wants a session, all in parallel (P8.1, P16.2). */
  private async connectAll(cfg: Config): Promise<Map<string, Reached>> {
    const out = new Map<string, Reached>();
    const wanted = Array.from(cfg).filter(([, s]) => wantsSession(s));
    await Promise.all(
      wanted.map(async ([name, s]) => {
        try {
          out.set(name, await this.pool.attempt(name, s));
        } catch (e) {
          out.set(name, e as Error);
        }
      }),
    );
    return out;
  }

  /** status is P16: null when no server is configured (P16.7). */
  async status(): Promise<unknown[] | null> {
    const cfg = this.store.read();
    const reached = await this.connectAll(cfg);
    const out = sortedNames(cfg.keys()).map((name) => statusEntry(name, cfg.get(name)!, reached.get(name)));
    return out.length > 0 ? out : null;
  }

  /** tools is P8 and P14. */
  async tools(): Promise<{ tools: unknown[]; prompt: string }> {
    const cfg = this.store.read();
    const reached = await this.connectAll(cfg);
    const tools: unknown[] = [];
    for (const name of sortedNames(cfg.keys())) {
      const a = reached.get(name);
      if (!a || a instanceof Error || !a.session) continue; // P8.2: sessions only
      const hidden = new Set(cfg.get(name)!.disabledTools);
      for (const t of a.tools ?? []) {
        if (!hidden.has(t.name)) tools.push(toolEntry(name, t));
      }
    }
    return { tools, prompt: promptLine(this.pool.promptCounts()) }; // P14.1: the pool as it is
  }

  /** prewarm connects every server that wants a session, in the background (H4.4). */
  prewarm(): void {
    const cfg = this.store.read();
    if (cfg.size > 0) void this.connectAll(cfg);
  }

  /** call is P7, P9–P15: the output and the label of a call. */
  async call(name: string, args: Record<string, unknown> | null, contextWindow: number): Promise<{ output: string; label: string }> {
    const output = await call(this.pool, this.store, name, args ?? {}, contextWindow);
    return { output, label: label(args) };
  }

  /** save is C4 (then C7); it answers the status. */
  async save(req: SaveRequest): Promise<unknown[] | null> {
    const name = trimSpace(req.name); // C4.1
    if (name === "") throw new Refused(400, ERR_EMPTY_NAME); // C4.2
    if (name.includes("__")) throw new Refused(400, ERR_RESERVED); // C4.3
    const next: ServerConfig = {
      command: trimSpace(req.command), // C4.4
      args: req.args,
      env: req.env,
      url: trimSpace(req.url),
      headers: req.headers,
      enabled: req.enabled ?? true, // C4.6: replaced whole
      disabledTools: [],
    };
    const invalid = validate(next); // C4.5
    if (invalid !== "") throw new Refused(400, invalid);
    await this.change(name, (cfg) => void cfg.set(name, next));
    return this.status();
  }

  /** delete is C5, C7; it answers {"ok":true}. */
  delete(name: string): Promise<void> {
    return this.change(name, (cfg) => {
      this.known(cfg, name);
      cfg.delete(name);
    });
  }

  /** toggle turns a server on or off (C5, C7). */
  async toggle(name: string, on: boolean): Promise<unknown[] | null> {
    await this.change(name, (cfg) => {
      this.known(cfg, name).enabled = on;
    });
    return this.status();
  }

  /** tool is C6: a tool shown (removed everywhere) or hidden (then appended). */
  async tool(name: string, tool: string, on: boolean): Promise<unknown[] | null> {
    await this.change(name, (cfg) => {
      const s = this.known(cfg, name);
      s.disabledTools = s.disabledTools.filter((t) => t !== tool);
      if (!on) s.disabledTools.push(tool);
    });
    return this.status();
  }

  /** test drops the server's session, configured or not (C5.2), then answers the status. */
  async test(name: string): Promise<unknown[] | null> {
    this.pool.invalidate(name);
    return this.status();
  }

  private known(cfg: Config, name: string): ServerConfig {
    const s = cfg.get(name);
    if (!s) throw new Refused(400, unknownServer(name)); // C5.1
    return s;
  }

  /**
   * change applies fn to the stored configuration as read (C8.5), writes it
   * whole and invalidates the server (C7.1); a refusal changes nothing (C7.2).
   */
  private change(name: string, fn: (cfg: Config) => void): Promise<void> {
    return this.mutex.run(() => {
      const cfg = this.store.read();
      fn(cfg);
      try {
        this.store.write(cfg);
      } catch (e) {
        throw new Refused(400, `écriture de la configuration: ${(e as Error).message}`);
      }
      this.pool.invalidate(name);
    });
  }

  /** catalog is P17; an unreadable configuration leaves the entries it did not read not installed. */
  catalogAnswer(): unknown[] {
    const cfg = this.store.read();
    return catalogAnswer(loadCatalog(this.catalogFile), this.workspace, (id) => cfg.has(id));
  }
}

/** statusEntry is one server's line of the status (P16.1, P16.3–P16.5). */
function statusEntry(name: string, s: ServerConfig, r: Reached | undefined): Record<string, unknown> {
  const a = r instanceof Error ? undefined : r;
  const e: Record<string, unknown> = { name, transport: transportOf(s), enabled: s.enabled, connected: a?.session !== undefined };
  const error = r instanceof Error ? r.message : (a?.error ?? "");
  if (error !== "") e.error = error;
  e.tools = a?.session && a.tools ? a.tools.map((t) => t.name) : [];
  e.disabled = [...s.disabledTools];
  if (s.command !== "") e.command = s.command;
  if (s.args.length > 0) e.args = s.args;
  if (Object.keys(s.env).length > 0) e.env = s.env;
  if (s.url !== "") e.url = s.url;
  if (Object.keys(s.headers).length > 0) e.headers = s.headers;
  return e;
}
