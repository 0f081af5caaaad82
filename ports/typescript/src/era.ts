// The era of a run (E1, docs/rules.md): the protocol the pool speaks to its
// servers, read once at start from MCPPARITY_ERA. The handshake era
// (2025-11-25) is P5; in the 2026-07-28 era a server is opened with
// server/discover first (E2, src/discover.ts) and every later request
// carries the revision's _meta keys and Mcp-* headers (E3).

import type { JSONRPCMessage } from "@modelcontextprotocol/client";

import { trimSpace } from "./text.js";

export const ERA_VAR = "MCPPARITY_ERA";

/** HANDSHAKE_ERA is the default: initialize, sessions (P5). */
export const HANDSHAKE_ERA = "2025-11-25";

/** MODERN_ERA is the revision without handshake nor session (E2, E3). */
export const MODERN_ERA = "2026-07-28";

export type Era = typeof HANDSHAKE_ERA | typeof MODERN_ERA;

/** parseEra reads the era as the reference does: trimmed, blank is the handshake era, any other value an error. */
export function parseEra(v: string | undefined): Era {
  const s = trimSpace(v ?? "");
  if (s === "") return HANDSHAKE_ERA;
  if (s === HANDSHAKE_ERA || s === MODERN_ERA) return s;
  throw new Error(`${ERA_VAR}=${JSON.stringify(v)}: want ${HANDSHAKE_ERA} (the default) or ${MODERN_ERA}`);
}

/**
 * serverRequestAnswer is the pool's answer to a server's request on a
 * connection opened in the 2026-07-28 era, where the SDK's client drops
 * them: a ping gets {} (P6.2), roots/list no roots (P5.3), any other
 * request "Method not found". undefined for what is not a request.
 */
export function serverRequestAnswer(m: JSONRPCMessage): JSONRPCMessage | undefined {
  if (!("method" in m) || !("id" in m)) return undefined;
  if (m.method === "ping") return { jsonrpc: "2.0", id: m.id, result: {} };
  if (m.method === "roots/list") return { jsonrpc: "2.0", id: m.id, result: { roots: [] } };
  return { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } };
}

/**
 * withoutMeta is a notification as the go-sdk sends it in either era: its
 * params without the `_meta` the SDK adds once a version of the revision
 * is negotiated (a cancellation is `{requestId, reason}`, E3.1). Any other
 * message is returned as it is.
 */
export function withoutMeta(m: JSONRPCMessage): JSONRPCMessage {
  if (!("method" in m) || "id" in m || !m.params || !("_meta" in m.params)) return m;
  const { _meta: _, ...params } = m.params as Record<string, unknown>;
  return { ...m, params } as JSONRPCMessage;
}
