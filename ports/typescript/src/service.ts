// What the routes do (docs/contract.md, docs/rules.md): status (P16),
// tools (P8, P14), calls (P7, P9–P15), the mutations (C4–C7) and the
// catalog (P17), over the store and the pool.

import { CatalogEntry, catalogAnswer } from "./catalog.js";
import { Config, ConfigError, ServerConfig, emptyServer, transportOf, usable, validate } from "./config.js";
import { CALL_TIMEOUT_TEXT, Pool, Session, callTool, failureText } from "./pool.js";
import { callOutput, exposedName, label, mcpError, prefix, promptLine, toolEntry, unknownTool } from "./rules.js";
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
const READ_ERROR = "lecture de la configuration: ";
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

/** A simple queue: mutations of the store happen one at a time. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(f: () => Promise<T> | T): Promise<T> {
    const next = this.tail.then(f, f);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

export class Service {
  private readonly mutex = new Mutex();

  constructor(
    readonly store: Store,
    readonly pool: Pool,
    readonly catalog: CatalogEntry[],
    readonly workspace: string,
  ) {}

  /** read reads the stored configuration; unreadable: the rule's text. */
  private read(status: number): Config {
    try {
      return this.store.read();
    } catch (e) {
      throw new Refused(status, READ_ERROR + (e instanceof ConfigError ? e.message : (e as Error).message));
    }
  }

  /** connectAll connects every usable server, all in parallel (P8, P16). */
  private async connectAll(cfg: Config): Promise<Map<string, { session?: Session; error?: string }>> {
    const out = new Map<string, { session?: Session; error?: string }>();
    await Promise.all(
      Array.from(cfg.entries())
        .filter(([, s]) => usable(s))
        .map(async ([name, s]) => {
          try {
            out.set(name, { session: await this.pool.session(name, s) });
          } catch (e) {
            out.set(name, { error: (e as Error).message });
          }
        }),
    );
    return out;
  }

  /** status is P16; status 500 when the configuration is unreadable (or the given status). */
  async status(readStatus = 500): Promise<unknown[]> {
    return this.statusOf(this.read(readStatus));
  }

  private async statusOf(cfg: Config): Promise<unknown[]> {
    const conns = await this.connectAll(cfg);
    return sortedNames(cfg.keys()).map((name) => {
      const s = cfg.get(name)!;
      const c = conns.get(name);
      const invalid = validate(s);
      const e: Record<string, unknown> = {
        name,
        transport: transportOf(s),
        enabled: s.enabled,
        connected: c?.session !== undefined,
      };
      const error = invalid !== "" ? invalid : (c?.error ?? "");
      if (error !== "") e.error = error;
      e.tools = c?.session ? c.session.tools.map((t) => t.name) : [];
      e.disabled = s.disabledTools;
      if (s.command !== "") e.command = s.command;
      if (s.args.length > 0) e.args = s.args;
      if (Object.keys(s.env).length > 0) e.env = s.env;
      if (s.url !== "") e.url = s.url;
      if (Object.keys(s.headers).length > 0) e.headers = s.headers;
      return e;
    });
  }

  /** tools is P8 and P14. */
  async tools(): Promise<{ tools: unknown[]; prompt: string }> {
    const cfg = this.read(500);
    const conns = await this.connectAll(cfg);
    const tools: unknown[] = [];
    const counts: [string, number][] = [];
    for (const name of sortedNames(cfg.keys())) {
      const session = conns.get(name)?.session;
      if (!session) continue;
      const hidden = new Set(cfg.get(name)!.disabledTools);
      let n = 0;
      for (const t of session.tools) {
        if (hidden.has(t.name)) continue;
        tools.push(toolEntry(name, t));
        n++;
      }
      counts.push([name, n]);
    }
    return { tools, prompt: promptLine(counts) };
  }

  /** prewarm connects every usable server in the background. */
  prewarm(): void {
    let cfg: Config;
    try {
      cfg = this.store.read();
    } catch {
      return;
    }
    void this.connectAll(cfg);
  }

  /** call is P7, P9–P15: the output and the label of a call. */
  async call(name: string, args: Record<string, unknown> | null, contextWindow: number): Promise<{ output: string; label: string }> {
    const lbl = label(args);
    let cfg: Config;
    try {
      cfg = this.store.read();
    } catch (e) {
      return { output: mcpError(READ_ERROR + (e as Error).message), label: lbl };
    }
    return { output: await this.callOutput(cfg, name, args ?? {}, contextWindow), label: lbl };
  }

  private async callOutput(cfg: Config, name: string, args: Record<string, unknown>, contextWindow: number): Promise<string> {
    // P7: the first enabled, valid server (sorted) whose prefix starts the name.
    const server = sortedNames(cfg.keys()).find((n) => usable(cfg.get(n)!) && name.startsWith(prefix(n)));
    if (server === undefined) return unknownTool(name);
    const sc = cfg.get(server)!;
    let session: Session;
    try {
      session = await this.pool.session(server, sc);
    } catch {
      return unknownTool(name); // P9: the server cannot connect
    }
    const hidden = new Set(sc.disabledTools);
    const tool = session.tools.find((t) => !hidden.has(t.name) && exposedName(server, t.name) === name);
    if (!tool) return unknownTool(name);

    // P10: the call and its one retry are bounded together.
    const bound = this.pool.deadlines.call();
    const end = Date.now() + bound;
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(new Error(CALL_TIMEOUT_TEXT)), bound);
    const expired = new Promise<never>((_, reject) =>
      stop.signal.addEventListener("abort", () => reject(new Error(CALL_TIMEOUT_TEXT)), { once: true }),
    );
    expired.catch(() => {});
    try {
      let result: Record<string, unknown>;
      try {
        result = await callTool(session, tool.name, args, stop.signal, bound);
      } catch (first) {
        this.pool.invalidate(server, session);
        if (stop.signal.aborted) return mcpError(CALL_TIMEOUT_TEXT);
        let failure = failureText("tools/call", first, session.transport);
        // Retried only if still configured and enabled (read after the failure).
        let now: ServerConfig | undefined;
        try {
          now = this.store.read().get(server);
        } catch {
          now = undefined;
        }
        if (!now || !now.enabled) return mcpError(failure);
        let again: Session;
        try {
          again = await Promise.race([this.pool.session(server, now), expired]);
        } catch (e) {
          return mcpError(stop.signal.aborted ? CALL_TIMEOUT_TEXT : (e as Error).message);
        }
        try {
          result = await callTool(again, tool.name, args, stop.signal, Math.max(1, end - Date.now()));
        } catch (second) {
          // P10: a failed retry leaves its session in place.
          failure = stop.signal.aborted ? CALL_TIMEOUT_TEXT : failureText("tools/call", second, again.transport);
          return mcpError(failure);
        }
      }
      return callOutput(result, contextWindow);
    } finally {
      clearTimeout(timer);
    }
  }

  /** save is C4 (then C7); it answers the status. */
  async save(req: SaveRequest): Promise<unknown[]> {
    const cfg = await this.mutex.run(() => {
      const name = trimSpace(req.name);
      if (name === "") throw new Refused(400, ERR_EMPTY_NAME);
      if (name.includes("__")) throw new Refused(400, ERR_RESERVED);
      const next: ServerConfig = {
        ...emptyServer(),
        command: req.command,
        args: req.args,
        env: req.env,
        url: req.url,
        headers: req.headers,
      };
      const invalid = validate(next);
      if (invalid !== "") throw new Refused(400, invalid);
      const cfg = this.read(400);
      const old = cfg.get(name);
      next.enabled = req.enabled ?? old?.enabled ?? true;
      next.disabledTools = old ? old.disabledTools : [];
      cfg.set(name, next);
      this.write(cfg);
      this.pool.invalidate(name);
      return cfg;
    });
    return this.statusOf(cfg);
  }

  /** delete is C5, C7. */
  delete(name: string): Promise<void> {
    return this.mutex.run(() => {
      const cfg = this.read(400);
      if (!cfg.has(name)) throw new Refused(400, unknownServer(name));
      cfg.delete(name);
      this.write(cfg);
      this.pool.invalidate(name);
    });
  }

  /** toggle turns a server on or off (C5, C7). */
  toggle(name: string, on: boolean): Promise<unknown[]> {
    return this.mutate(name, (s) => {
      s.enabled = on;
    });
  }

  /** tool is C6: a tool hidden (appended) or shown (removed everywhere). */
  tool(name: string, tool: string, on: boolean): Promise<unknown[]> {
    return this.mutate(name, (s) => {
      s.disabledTools = s.disabledTools.filter((t) => t !== tool);
      if (!on) s.disabledTools.push(tool);
    });
  }

  /** test drops the server's session, then answers the status (it reconnects). */
  async test(name: string): Promise<unknown[]> {
    const cfg = await this.mutex.run(() => {
      const cfg = this.read(400);
      if (!cfg.has(name)) throw new Refused(400, unknownServer(name));
      this.pool.invalidate(name);
      return cfg;
    });
    return this.statusOf(cfg);
  }

  private async mutate(name: string, change: (s: ServerConfig) => void): Promise<unknown[]> {
    const cfg = await this.mutex.run(() => {
      const cfg = this.read(400);
      const s = cfg.get(name);
      if (!s) throw new Refused(400, unknownServer(name));
      change(s);
      this.write(cfg);
      this.pool.invalidate(name);
      return cfg;
    });
    return this.statusOf(cfg);
  }

  private write(cfg: Config): void {
    try {
      this.store.write(cfg);
    } catch (e) {
      throw new Refused(500, `écriture de la configuration: ${(e as Error).message}`);
    }
  }

  /** catalog is P17: an unreadable configuration leaves every entry not installed. */
  catalogAnswer(): unknown[] {
    let cfg: Config;
    try {
      cfg = this.store.read();
    } catch {
      cfg = new Map();
    }
    return catalogAnswer(this.catalog, this.workspace, (id) => cfg.has(id));
  }
}
