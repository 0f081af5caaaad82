// The Streamable HTTP transport of a session (P6, docs/rules.md): the SDK's
// StreamableHTTPClientTransport, with every configured header on every
// request (POST, GET, DELETE), its fetch on node:http (src/fetch.ts), an
// answer outside 2xx read by its status alone (P5.4), and two additions:
//
//   - a request whose SSE answer stream breaks before the answer fails at
//     once with the stream's error (the SDK reports the broken stream but
//     leaves the request waiting), so that P10 reconnects; the session
//     itself goes on, as the reference's does;
//   - an answer to a tools/call carries its result as the server wrote it
//     (src/rawresult.ts), in a JSON body or an SSE stream;
//   - closing a live session lets its requests in flight end, then ends
//     it on the server too (DELETE): the wait is bounded by the close
//     grace, the DELETE by DELETE_BOUND_MS, which the time scale does not
//     shrink (a DELETE is a round trip on the machine, not a rule's time).

import http from "node:http";

import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";

import { httpFetch } from "./fetch.js";
import { markEvents, markResponses } from "./rawresult.js";

export interface HttpParams {
  url: string;
  headers: Record<string, string>;
}

// How long the DELETE that ends a session may take (P2.5). The reference's
// go-sdk bounds it by no time of its own; a scaled grace (60 ms at 0.03)
// would lose it on a loaded machine.
const DELETE_BOUND_MS = 2000;

function idKey(id: unknown): string {
  return JSON.stringify(id);
}

/**
 * statusError is P5.4: a request answered outside 2xx fails with its
 * status alone, as the reference's go-sdk words it (`sending "<method>":
 * <status text>`); the JSON-RPC error in the body is not read. A 404 keeps
 * the SDK's text (the session is gone: P10 reconnects).
 */
function statusError(message: JSONRPCMessage, err: unknown): unknown {
  if (!(err instanceof StreamableHTTPError) || !("method" in message)) return err;
  const code = err.code ?? 0;
  if (code < 300 || code === 404) return err;
  return new Error(`sending "${message.method}": ${http.STATUS_CODES[code] ?? String(code)}`);
}

export class WatchedHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly inner: StreamableHTTPClientTransport;
  private readonly pending = new Set<string>(); // requests sent, not answered
  private readonly broken = new Map<string, RequestId>(); // requests whose answer stream broke
  /** Set once initialize succeeded: close then ends the session on the server. */
  graceful = false;

  private readonly headers: Record<string, string>;

  constructor(
    params: HttpParams,
    private readonly graceMs: () => number,
  ) {
    this.headers = { ...params.headers };
    this.inner = new StreamableHTTPClientTransport(new URL(params.url), {
      // P6: configured headers on every request, replacing same-named ones.
      requestInit: { headers: { ...params.headers } },
      fetch: this.watch,
    });
    this.inner.onmessage = (m) => {
      if (!("method" in m) && "id" in m) this.settle(idKey(m.id));
      this.onmessage?.(m);
    };
    this.inner.onerror = (err) => {
      this.onerror?.(err);
      this.checkBroken(err);
    };
    this.inner.onclose = () => this.onclose?.();
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion(version);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    let key: string | undefined;
    if ("method" in message && "id" in message) {
      key = idKey(message.id);
      this.pending.add(key);
    } else if ("method" in message && message.method === "notifications/cancelled") {
      // The client stopped waiting for that request.
      this.settle(idKey((message.params as { requestId?: unknown } | undefined)?.requestId));
    }
    try {
      await this.inner.send(message);
    } catch (err) {
      if (key !== undefined) this.settle(key);
      throw statusError(message, err);
    }
  }

  private settle(key: string): void {
    this.pending.delete(key);
    if (this.pending.size === 0) {
      for (const f of this.idle.splice(0)) f();
    }
  }

  private readonly idle: (() => void)[] = [];

  /**
   * close ends the session. An established one (its initialize succeeded)
   * first lets the requests in flight end (within the close grace, as a
   * stdio server gets it, P2.4), then ends the session on the server
   * (DELETE, P2.5, bounded by DELETE_BOUND_MS).
   */
  async close(): Promise<void> {
    if (this.graceful) {
      this.graceful = false;
      await this.within(this.graceMs(), new Promise<void>((resolve) => (this.pending.size === 0 ? resolve() : this.idle.push(resolve))));
      await this.within(
        DELETE_BOUND_MS,
        this.inner.terminateSession().catch(() => {
          // the server may have forgotten the session already
        }),
      );
    }
    await this.inner.close();
  }

  private async within(ms: number, p: Promise<void>): Promise<void> {
    let t: NodeJS.Timeout | undefined;
    await Promise.race([p, new Promise<void>((resolve) => (t = setTimeout(resolve, ms)))]);
    clearTimeout(t);
  }

  /**
   * The SDK has reported an error; the streams that broke before it have
   * been read to their end. A request among them still unanswered will
   * never be: it is failed with that error, handed to the client as the
   * error answer of that request (a transport has no other way to end a
   * request of the SDK's).
   */
  private checkBroken(err: Error): void {
    for (const [key, id] of this.broken) {
      this.broken.delete(key);
      if (!this.pending.has(key)) continue;
      this.settle(key);
      this.onmessage?.({ jsonrpc: "2.0", id, error: { code: ErrorCode.ConnectionClosed, message: err.message } });
    }
  }

  /**
   * watch is the transport's fetch: it notes the answer streams that break,
   * and gives an answer to a tools/call its result's text, in a JSON body
   * or an SSE stream (src/rawresult.ts).
   */
  private readonly watch: FetchLike = async (url, init) => {
    // P6: the configured headers replace the transport's own of the same
    // name on every request (it sets Accept and Content-Type of a POST last).
    if (init && Object.keys(this.headers).length > 0) {
      const h = new Headers(init.headers);
      for (const [k, v] of Object.entries(this.headers)) h.set(k, v);
      init = { ...init, headers: h };
    }
    const res = await httpFetch(url, init);
    if (init?.method !== "POST" || !res.body || typeof init.body !== "string") return res;
    let id: RequestId | undefined;
    let method = "";
    try {
      const m = JSON.parse(init.body) as Record<string, unknown>;
      if (m && typeof m.method === "string" && (typeof m.id === "number" || typeof m.id === "string")) {
        id = m.id;
        method = m.method;
      }
    } catch {
      // not a message of ours
    }
    if (id === undefined) return res;
    const key = idKey(id);
    const isCall = (k: string) => method === "tools/call" && k === key;
    const type = (res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    const init2 = { status: res.status, statusText: res.statusText, headers: res.headers };
    if (type === "application/json" && method === "tools/call") {
      const text = await res.text();
      return new Response(markResponses(text, isCall) ?? text, init2);
    }
    if (type !== "text/event-stream") return res;
    const reader = res.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const { value, done } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (err) {
          this.broken.set(key, id);
          controller.error(err);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    const events = method === "tools/call" ? body.pipeThrough(markEvents((data) => markResponses(data, isCall))) : body;
    return new Response(events, init2);
  };
}
