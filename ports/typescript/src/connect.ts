// Opening a session (P3–P6, P16.4, docs/rules.md): the transport,
// initialize and the first tools/list under the handshake deadline, and
// the texts of what fails. An attempt that fails, or is cancelled, before
// its initialize succeeded is ended at once (P2.1, P2.3); one whose first
// tools/list fails keeps its session, with the failure's text (P16.4).

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ListRootsRequestSchema, McpError, ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

import { ServerConfig, transportOf } from "./config.js";
import { WatchedHttpTransport } from "./http.js";
import { Tool, toTools } from "./rules.js";
import { GroupStdioTransport, StartError } from "./stdio.js";
import { Deadlines } from "./time.js";
import { trace } from "./trace.js";

/** Session is a server whose initialize succeeded: its client and transport. */
export interface Session {
  client: Client;
  transport: GroupStdioTransport | WatchedHttpTransport;
}

/** Outcome is what an attempt ends with (P16): a session, its tools, an error. */
export interface Outcome {
  session?: Session;
  tools?: Tool[]; // the first tools/list succeeded
  error?: string;
}

// P5: the client's name and version.
const CLIENT_INFO = { name: "mcpparity-ref", version: "1.0.0" };

/** INVALIDATED ends an attempt whose server was invalidated meanwhile (P2.1). */
export const INVALIDATED = "session invalidée pendant la connexion";

/** TIMEOUT_TEXT is the port's text of a bound that passed (P4.3, P10.2): Node's. */
export const TIMEOUT_TEXT = "The operation was aborted due to timeout";

// The SDK's own request timeout is set past the pool's deadlines, which
// decide (P3, P10).
export const SDK_TIMEOUT_MARGIN_MS = 60_000;

// The pool checks no result against a tool's output schema (no rule asks
// it); the SDK's default validator (Ajv) would be built for every session.
const NO_VALIDATION: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

/** baseName is Go's filepath.Base on Linux: the last element, "/" the only separator. */
export function baseName(path: string): string {
  if (path === "") return ".";
  const t = path.replace(/\/+$/, "");
  return t === "" ? "/" : t.slice(t.lastIndexOf("/") + 1);
}

/** launcherOf is P3.2: "npx" or "uvx" when the command's base name is one. */
export function launcherOf(command: string): string | undefined {
  let base = baseName(command).toLowerCase();
  if (base.endsWith(".exe")) base = base.slice(0, -4);
  if (base.endsWith(".cmd")) base = base.slice(0, -4);
  return base === "npx" || base === "uvx" ? base : undefined;
}

/** deadlineText is P4.1 (the durations unscaled, P4.2). */
export function deadlineText(launcher: string | undefined): string {
  if (launcher !== undefined) {
    return `délai dépassé — ${launcher} télécharge le paquet du serveur au premier lancement, ce qui peut être long ; clique « tester » pour réessayer (le paquet reste en cache), et vérifie que le conteneur atteint le registre (npm/PyPI)`;
  }
  return "délai dépassé — le serveur n'a pas répondu au handshake en 20s";
}

/** The text of a request's failure (P10.5): a JSON-RPC error's message, or the transport's error. */
export function failureText(method: string, err: unknown): string {
  const text = err instanceof McpError ? err.message.replace(/^MCP error -?\d+: /, "") : describe(err);
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

/** Why an attempt was stopped: its deadline, or its invalidation. */
class Stopped extends Error {}
class Deadline extends Stopped {}

/** abortable rejects with the signal's reason once it is aborted. */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    if (signal.aborted) stop();
    signal.addEventListener("abort", stop, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

function newTransport(cfg: ServerConfig, deadlines: Deadlines): Session["transport"] {
  const grace = () => deadlines.grace();
  return transportOf(cfg) === "stdio"
    ? new GroupStdioTransport({ command: cfg.command, args: cfg.args, env: cfg.env }, grace)
    : new WatchedHttpTransport({ url: cfg.url, headers: cfg.headers }, grace);
}

function newClient(): Client {
  // P5.1, P5.3: the client declares roots (none are given) like the reference's.
  const client = new Client(CLIENT_INFO, { capabilities: { roots: { listChanged: true } }, jsonSchemaValidator: NO_VALIDATION });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }));
  client.onerror = () => {
    // transport errors are seen by the requests they fail
  };
  return client;
}

/** closeNow ends what an attempt opened at once: a stdio group is killed (P2.1, P2.3). */
export async function closeNow(s: Session): Promise<void> {
  s.transport.graceful = false;
  await s.transport.close().catch(() => {});
  await s.client.close().catch(() => {});
}

/**
 * open runs an attempt (P5): initialize, notifications/initialized, then
 * one tools/list without cursor, all within the handshake deadline (P3).
 * cancel is the server's invalidation. It never rejects.
 */
export async function open(cfg: ServerConfig, cancel: AbortSignal, deadlines: Deadlines): Promise<Outcome> {
  const launcher = transportOf(cfg) === "stdio" ? launcherOf(cfg.command) : undefined;
  const limit = deadlines.handshake(launcher !== undefined);
  let session: Session;
  try {
    session = { client: newClient(), transport: newTransport(cfg, deadlines) };
  } catch (err) {
    return { error: describe(err) };
  }
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Deadline()), limit);
  const onCancel = () => stop.abort(new Stopped());
  if (cancel.aborted) onCancel();
  else cancel.addEventListener("abort", onCancel, { once: true });
  const started = performance.now();
  const took = () => `${(performance.now() - started).toFixed(0)} ms of ${limit}`;
  try {
    const timeout = limit + SDK_TIMEOUT_MARGIN_MS;
    try {
      await abortable(session.client.connect(session.transport, { timeout }), stop.signal);
    } catch (err) {
      trace(`initialize ${cfg.url || cfg.command} failed after ${took()}: ${describe(err)}`);
      await closeNow(session);
      return { error: initializeFailure(err, launcher) };
    }
    session.transport.graceful = true; // established: closed with P2.2's grace from now on
    try {
      const result = await session.client.request({ method: "tools/list" }, ResultSchema, { timeout, signal: stop.signal });
      trace(`handshake ${cfg.url || cfg.command}: ${took()}`);
      return { session, tools: toTools(result as Record<string, unknown>) };
    } catch (err) {
      trace(`tools/list ${cfg.url || cfg.command} failed after ${took()}: ${describe(err)}`);
      return listFailure(err, stop.signal, session);
    }
  } finally {
    clearTimeout(timer);
    cancel.removeEventListener("abort", onCancel);
  }
}

function initializeFailure(err: unknown, launcher: string | undefined): string {
  if (err instanceof Deadline) return deadlineText(launcher); // P4.1
  if (err instanceof Stopped) return INVALIDATED;
  if (err instanceof StartError) return err.message; // e.g. P6.3's command not found
  return failureText("initialize", err);
}

/** listFailure: the session is kept with the error (P16.4), unless it was invalidated. */
async function listFailure(err: unknown, signal: AbortSignal, session: Session): Promise<Outcome> {
  if (signal.reason instanceof Deadline) return { session, error: TIMEOUT_TEXT }; // P4.3: not worded
  if (signal.aborted) {
    // invalidated after its initialize: closed as a connected session is
    // (P2.1, P2.2: stdin, the grace, then the group; P2.5: the DELETE)
    await session.transport.close().catch(() => {});
    await session.client.close().catch(() => {});
    return { error: INVALIDATED };
  }
  return { session, error: failureText("tools/list", err) };
}
