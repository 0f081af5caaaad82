// Opening a session (P3–P6, P16.4, E2, docs/rules.md): the transport,
// the handshake (initialize; in the 2026-07-28 era server/discover first,
// src/discover.ts) and the first tools/list under the handshake deadline,
// and the texts of what fails. An attempt that fails, or is cancelled,
// before its handshake succeeded is ended at once (P2.1, P2.3); one whose
// first tools/list fails keeps its session, with the failure's text (P16.4).

import { Client, ProtocolError, type JsonSchemaValidator, type StandardSchemaV1, type jsonSchemaValidator } from "@modelcontextprotocol/client";

import { ServerConfig, transportOf } from "./config.js";
import { discover } from "./discover.js";
import { Era, MODERN_ERA } from "./era.js";
import { WatchedHttpTransport } from "./http.js";
import { listResultOf } from "./rawresult.js";
import { Tool, toTools } from "./rules.js";
import { GroupStdioTransport, StartError } from "./stdio.js";
import { Deadlines } from "./time.js";
import { trace } from "./trace.js";

/** Session is a server whose handshake succeeded: its client and transport. */
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

/**
 * ANY_RESULT is the result schema of the pool's requests: any result
 * passes. The pool reads tools/list and tools/call results itself (P8,
 * P11), not as the SDK's schemas would have them.
 */
export const ANY_RESULT: StandardSchemaV1<unknown, Record<string, unknown>> = {
  "~standard": { version: 1, vendor: "mcpparity", validate: (value) => ({ value: value as Record<string, unknown> }) },
};

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
  const text = err instanceof ProtocolError ? err.message : describe(err);
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

// P5.1, E2.1: the capabilities the client declares, the reference's.
const CAPABILITIES = { roots: { listChanged: true } };

function newClient(): Client {
  // P5.1, P5.3: the client declares roots (none are given) like the reference's.
  const client = new Client(CLIENT_INFO, { capabilities: CAPABILITIES, jsonSchemaValidator: NO_VALIDATION });
  client.setRequestHandler("roots/list", () => ({ roots: [] }));
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
 * handshake connects the client (P5): initialize and
 * notifications/initialized; in the 2026-07-28 era, server/discover first,
 * then initialize only when the server was not opened by it (E2).
 */
async function handshake(session: Session, era: Era, timeout: number): Promise<void> {
  if (era !== MODERN_ERA) return session.client.connect(session.transport, { timeout });
  await session.transport.start();
  const prior = await discover(session.transport, CLIENT_INFO, CAPABILITIES);
  await session.client.connect(session.transport, { timeout, prior });
  // E3.1: no requests from the server in that era; the transport answers them (P5.3, P6.2).
  session.transport.modern = session.client.getProtocolEra() === "modern";
}

/**
 * open runs an attempt (P5, E2): the handshake, then one tools/list
 * without cursor, all within the handshake deadline (P3, E2.4). cancel is
 * the server's invalidation. It never rejects.
 */
export async function open(cfg: ServerConfig, cancel: AbortSignal, deadlines: Deadlines, era: Era): Promise<Outcome> {
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
      await abortable(handshake(session, era, timeout), stop.signal);
    } catch (err) {
      trace(`initialize ${cfg.url || cfg.command} failed after ${took()}: ${describe(err)}`);
      await closeNow(session);
      return { error: initializeFailure(err, launcher) };
    }
    session.transport.graceful = true; // established: closed with P2.2's grace from now on
    try {
      const result = await session.client.request({ method: "tools/list" }, ANY_RESULT, { timeout, signal: stop.signal });
      trace(`handshake ${cfg.url || cfg.command}: ${took()}`);
      return { session, tools: toTools(listResultOf(result)) };
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
