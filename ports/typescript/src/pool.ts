// The session pool (P1–P6, P10, docs/rules.md): one shared session per
// server, published before it connects; invalidation that cancels an
// attempt in flight; the handshake and its deadline; calls with one
// reconnection.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ListRootsRequestSchema, McpError, ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

import { ServerConfig, transportOf } from "./config.js";
import { WatchedHttpTransport } from "./http.js";
import { Tool, toTools } from "./rules.js";
import { GroupStdioTransport, StartError } from "./stdio.js";
import { Deadlines } from "./time.js";
import { trace } from "./trace.js";

export { trace };

/** Session is a connected server: its client and its first page of tools. */
export interface Session {
  client: Client;
  transport: GroupStdioTransport | WatchedHttpTransport;
  tools: Tool[];
}

interface Entry {
  ready: Promise<Session>;
  session?: Session;
  cancel: () => void;
}

// P5 (docs/rules.md): the client's name and version.
const CLIENT_INFO = { name: "mcpparity-ref", version: "1.0.0" };

// The SDK's own request timeout is set past the pool's deadlines, which
// decide (P3, P10).
const SDK_TIMEOUT_MARGIN_MS = 60_000;

// The pool checks no result against a tool's output schema (no rule asks
// it); the SDK's default validator (Ajv) would be built for every session.
const NO_VALIDATION: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

/** launcherOf is P3: "npx" or "uvx" when the command's base name is one. */
export function launcherOf(command: string): string | undefined {
  let base = command.slice(Math.max(command.lastIndexOf("/"), command.lastIndexOf("\\")) + 1).toLowerCase();
  if (base.endsWith(".exe")) base = base.slice(0, -4);
  if (base.endsWith(".cmd")) base = base.slice(0, -4);
  return base === "npx" || base === "uvx" ? base : undefined;
}

/** deadlineText is P4 (the durations unscaled). */
export function deadlineText(launcher: string | undefined): string {
  if (launcher !== undefined) {
    return `délai dépassé — ${launcher} télécharge le paquet du serveur au premier lancement, ce qui peut être long ; clique « tester » pour réessayer (le paquet reste en cache), et vérifie que le conteneur atteint le registre (npm/PyPI)`;
  }
  return "délai dépassé — le serveur n'a pas répondu au handshake en 20s";
}

/** A failure whose text is shown as is. */
export class PoolError extends Error {}

/** The text of a request's failure (P10): a JSON-RPC error's message, or the transport's error. */
export function failureText(method: string, err: unknown, transport?: Session["transport"]): string {
  if (err instanceof PoolError) return err.message;
  if (transport instanceof WatchedHttpTransport && transport.failure) {
    err = transport.failure;
  }
  let text: string;
  if (err instanceof McpError) {
    text = err.message.replace(/^MCP error -?\d+: /, "");
  } else {
    text = describe(err);
  }
  return `calling "${method}": ${text}`;
}

/** describe writes an error with its causes (an error may keep the socket's error as its cause). */
export function describe(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let i = 0; i < 5 && e !== undefined && e !== null; i++) {
    const m = e instanceof Error ? e.message : String(e);
    if (m !== "" && !parts.includes(m)) parts.push(m);
    e = e instanceof Error ? (e as Error & { cause?: unknown }).cause : undefined;
  }
  return parts.join(": ");
}

export class Pool {
  private readonly entries = new Map<string, Entry>();
  private readonly closings = new Set<Promise<void>>();
  private closing = false;

  constructor(readonly deadlines: Deadlines) {}

  /**
   * session returns the server's live session, or the shared attempt in
   * flight, or starts one (P1). A failed attempt is not kept.
   */
  session(name: string, cfg: ServerConfig): Promise<Session> {
    const existing = this.entries.get(name);
    if (existing) return existing.ready;
    if (this.closing) return Promise.reject(new PoolError("the service is stopping"));
    const cancel = new AbortController();
    const entry: Entry = { ready: Promise.resolve() as unknown as Promise<Session>, cancel: () => cancel.abort() };
    // P1: the entry is published before connecting.
    this.entries.set(name, entry);
    entry.ready = connect(cfg, cancel.signal, this.deadlines).then(
      (s) => {
        if (this.entries.get(name) !== entry) {
          // P2: invalidated meanwhile: never published, closed at once.
          s.transport.graceful = false;
          void s.client.close().catch(() => {});
          throw new PoolError("session invalidated while connecting");
        }
        entry.session = s;
        return s;
      },
      (err) => {
        if (this.entries.get(name) === entry) this.entries.delete(name);
        throw err;
      },
    );
    entry.ready.catch(() => {
      // callers see the failure; nothing else waits on it
    });
    return entry.ready;
  }

  /**
   * invalidate drops the server's session (C7): a connected one is closed
   * (P2's grace for stdio), an attempt in flight is cancelled and what it
   * opened ended at once. With only, the session is dropped only if it is
   * still that one.
   */
  invalidate(name: string, only?: Session): void {
    const e = this.entries.get(name);
    if (!e) return;
    if (only && e.session !== only) return; // a newer session: not the one that failed
    this.entries.delete(name);
    if (!e.session) e.cancel();
    // The caller does not wait for the close; shutdown does.
    const done = e.ready.then(closeSession, () => undefined);
    this.closings.add(done);
    void done.then(() => this.closings.delete(done));
  }

  /** close ends every session and waits until each is closed (shutdown). */
  async close(): Promise<void> {
    this.closing = true;
    for (const name of Array.from(this.entries.keys())) this.invalidate(name);
    await Promise.all(Array.from(this.closings));
  }
}

async function closeSession(s: Session): Promise<void> {
  try {
    await s.client.close();
  } catch {
    // closing is best effort
  }
}

/**
 * connect opens a session (P5): initialize, notifications/initialized, then
 * one tools/list without cursor, all bounded by the handshake deadline
 * (P3). On failure or cancellation (P2) what was opened is ended at once.
 */
async function connect(cfg: ServerConfig, cancel: AbortSignal, deadlines: Deadlines): Promise<Session> {
  const stdio = transportOf(cfg) === "stdio";
  const launcher = stdio ? launcherOf(cfg.command) : undefined;
  const limit = deadlines.handshake(launcher !== undefined);
  const grace = () => deadlines.grace();
  let transport: Session["transport"];
  try {
    transport = stdio
      ? new GroupStdioTransport({ command: cfg.command, args: cfg.args, env: cfg.env }, grace)
      : new WatchedHttpTransport({ url: cfg.url, headers: cfg.headers }, grace);
  } catch (err) {
    throw new PoolError(describe(err));
  }
  // P5: the client declares roots (none are given) like the reference's.
  const client = new Client(CLIENT_INFO, { capabilities: { roots: { listChanged: true } }, jsonSchemaValidator: NO_VALIDATION });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }));
  client.onerror = () => {
    // transport errors are seen by the requests they fail
  };
  const timeout = limit + SDK_TIMEOUT_MARGIN_MS;
  let step = "initialize";
  const handshake = (async () => {
    await client.connect(transport, { timeout });
    step = "tools/list";
    const result = await client.request({ method: "tools/list" }, ResultSchema, { timeout });
    return toTools(result as Record<string, unknown>);
  })();

  let timer: NodeJS.Timeout | undefined;
  let onCancel: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PoolError(deadlineText(launcher))), limit);
    onCancel = () => reject(new PoolError("session invalidated while connecting"));
    if (cancel.aborted) onCancel();
    else cancel.addEventListener("abort", onCancel, { once: true });
  });
  stop.catch(() => {});
  const started = performance.now();
  try {
    const tools = await Promise.race([handshake, stop]);
    transport.graceful = true;
    trace(`handshake ${cfg.url || cfg.command}: ${(performance.now() - started).toFixed(0)} ms of ${limit}`);
    return { client, transport, tools };
  } catch (err) {
    trace(`handshake ${cfg.url || cfg.command} failed after ${(performance.now() - started).toFixed(0)} ms of ${limit}: ${describe(err)}`);
    handshake.catch(() => {});
    // P2: not published, so ended at once (a stdio group is killed).
    await transport.close().catch(() => {});
    await client.close().catch(() => {});
    if (err instanceof PoolError) throw err;
    if (err instanceof StartError) throw new PoolError(err.message); // e.g. P6's command not found
    throw new PoolError(failureText(step, err, transport));
  } finally {
    clearTimeout(timer);
    if (onCancel) cancel.removeEventListener("abort", onCancel);
  }
}

/** CALL_TIMEOUT_TEXT is the failure of a call past P10's bound (a timeout text of the port's own). */
export const CALL_TIMEOUT_TEXT = "The operation was aborted due to timeout";

/** callTool sends one tools/call on a session; signal ends it (the SDK tells the server). */
export async function callTool(
  s: Session,
  tool: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  timeout: number,
): Promise<Record<string, unknown>> {
  const result = await s.client.request(
    { method: "tools/call", params: { name: tool, arguments: args } },
    ResultSchema,
    { signal, timeout: timeout + SDK_TIMEOUT_MARGIN_MS },
  );
  return result as Record<string, unknown>;
}
