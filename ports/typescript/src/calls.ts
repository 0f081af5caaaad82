// A call (P7.3, P9, P10, docs/rules.md): resolved through the registry,
// made on the server's session as the pool holds it, each attempt within
// its own bound; a failed attempt is retried once on a new session, only
// when the server is still configured and enabled. A result the go-sdk
// cannot read fails its attempt as a JSON-RPC error does (P11.6).

import { ANY_RESULT, SDK_TIMEOUT_MARGIN_MS, TIMEOUT_TEXT, failureText } from "./connect.js";
import { Pool, ToolRef } from "./pool.js";
import { rawResultOf } from "./rawresult.js";
import { CallResult, readResult } from "./results.js";
import { callOutput, mcpError, notConnected, unknownTool } from "./rules.js";
import { Store } from "./store.js";

type Result = Record<string, unknown>;

/** Try is an attempt's end: a result (a tool error included) or a failure. */
type Try = { result: CallResult } | { error: string };

/** Bound is the reason of an attempt stopped at its bound. */
class Bound extends Error {}

/**
 * attemptCall makes one call on the session the pool holds now (P10.1),
 * bounded by P10.2 (the SDK then tells the server: notifications/cancelled).
 * Its result is read as the go-sdk reads it, from the text the transport
 * kept (src/rawresult.ts); one that cannot be read fails the attempt with
 * the reader's text (P11.6).
 */
export async function attemptCall(pool: Pool, ref: ToolRef, args: Result): Promise<Try> {
  const session = pool.connected(ref.server);
  if (!session) return { error: notConnected(ref.server) };
  const bound = pool.deadlines.call();
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Bound(TIMEOUT_TEXT)), bound);
  try {
    const answer = await session.client.request({ method: "tools/call", params: { name: ref.tool, arguments: args } }, ANY_RESULT, {
      signal: stop.signal,
      timeout: bound + SDK_TIMEOUT_MARGIN_MS,
    });
    const result = readResult(rawResultOf(answer));
    return { result };
  } catch (err) {
    return { error: failureText("tools/call", stop.signal.aborted ? stop.signal.reason : err) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * retry is P10.3 after a failed attempt: the store is read; only a server
 * still configured and enabled is invalidated, connected again (bounded by
 * P3) and called once more. Otherwise the first failure stands (P10.4).
 */
async function retry(pool: Pool, store: Store, ref: ToolRef, args: Result, first: Try): Promise<Try> {
  const cfg = store.read().get(ref.server);
  if (!cfg || !cfg.enabled) return first;
  pool.invalidate(ref.server);
  try {
    await pool.attempt(ref.server, cfg);
  } catch (e) {
    return { error: (e as Error).message };
  }
  return attemptCall(pool, ref, args);
}

/** call is the output of a call (P9–P13). */
export async function call(pool: Pool, store: Store, name: string, args: Result, contextWindow: number): Promise<string> {
  const ref = pool.lookup(name); // P7.3: a call connects nothing
  if (!ref) return unknownTool(name); // P9.1
  let t = await attemptCall(pool, ref, args);
  if ("error" in t) t = await retry(pool, store, ref, args, t);
  return "error" in t ? mcpError(t.error) : callOutput(t.result, contextWindow);
}
