// Opening a server in the 2026-07-28 era (E2, docs/rules.md), as the go-sdk
// v1.8.0 client negotiates: server/discover first, on the transport before
// the client is connected to it; the verdict is handed to the SDK's
// connect as a prior discovery. A result whose supportedVersions holds
// 2026-07-28 opens the server in the modern era; a JSON-RPC error -32022
// whose data.supported lists it gets one more server/discover; any other
// outcome (another error, an HTTP answer outside 2xx, a failed send, a
// result without the version) falls back to initialize on the same
// connection (the same process over stdio).
//
// The SDK's own negotiation (versionNegotiation 'auto') is not used: it
// fails the connection where the go-sdk falls back (a network error, an
// HTTP 5xx, 401 or 403, an unusable reply, a connection closed during the
// probe) and reads the JSON-RPC error in the body of an HTTP 400.

import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type DiscoverResult,
  type JSONRPCMessage,
  type PriorDiscovery,
  type Transport,
} from "@modelcontextprotocol/client";

import { MODERN_ERA } from "./era.js";

// The JSON-RPC error of a version the server does not support.
const UNSUPPORTED_VERSION = -32022;

/** Reply is what one server/discover got: the server's answer, or nothing. */
type Reply = { result: Record<string, unknown> } | { error: { code: number; data?: unknown } } | { failed: true };

function exchange(transport: Transport, request: JSONRPCMessage & { id: string }): Promise<Reply> {
  return new Promise((resolve) => {
    transport.onmessage = (m) => {
      if ("id" in m && m.id === request.id && !("method" in m)) {
        resolve("error" in m ? { error: m.error } : { result: (m as { result: Record<string, unknown> }).result });
      }
    };
    transport.onclose = () => resolve({ failed: true });
    transport.send(request).catch(() => resolve({ failed: true }));
  });
}

/**
 * supports reports whether a list of versions (a result's, an error's data)
 * holds the modern one; a list with anything but strings is unreadable, as
 * the go-sdk's decoding of it fails (the client then falls back).
 */
function supports(versions: unknown): boolean {
  return Array.isArray(versions) && versions.every((v) => typeof v === "string") && versions.includes(MODERN_ERA);
}

/**
 * discover runs E2.1–E2.3 on a started transport and says how the client
 * is to connect: modern, with the server's result, or legacy (initialize).
 * The transport's handlers are cleared for the client's connect.
 */
export async function discover(transport: Transport, clientInfo: { name: string; version: string }, capabilities: object): Promise<PriorDiscovery> {
  try {
    for (let round = 1; round <= 2; round++) {
      const reply = await exchange(transport, {
        jsonrpc: "2.0",
        id: `mcpparity-discover-${round}`,
        method: "server/discover",
        params: {
          _meta: {
            [PROTOCOL_VERSION_META_KEY]: MODERN_ERA,
            [CLIENT_INFO_META_KEY]: clientInfo,
            [CLIENT_CAPABILITIES_META_KEY]: capabilities,
          },
        },
      });
      if ("result" in reply && supports(reply.result?.supportedVersions)) {
        return { kind: "modern", discover: reply.result as DiscoverResult };
      }
      const data = "error" in reply ? (reply.error.data as { supported?: unknown } | undefined) : undefined;
      if (!("error" in reply) || reply.error.code !== UNSUPPORTED_VERSION || !supports(data?.supported)) break;
    }
    return { kind: "legacy" };
  } finally {
    transport.onmessage = undefined;
    transport.onclose = undefined;
  }
}
