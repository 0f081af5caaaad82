// The Streamable HTTP transport of a session (P6, docs/rules.md): the SDK's
// StreamableHTTPClientTransport, with every configured header on every
// request (POST, GET, DELETE), its fetch on node:http (src/fetch.ts), an
// answer outside 2xx read by its status alone (P5.4), and these additions:
//
//   - an answer outside 2xx but for a transient status ends the connection
//     (P10.7): a later request fails at once with its text, nothing sent;
//   - a request whose SSE answer stream breaks before the answer fails at
//     once with the stream's error (the SDK reports the broken stream but
//     leaves the request waiting), so that P10 reconnects; the session
//     itself goes on, as the reference's does;
//   - in the 2026-07-28 era, the body of an answer outside 2xx is not given
//     to the SDK, which would read a JSON-RPC error in it (E2.3, E3.2), a
//     notification carries Mcp-Method as a request does (the go-sdk's), and
//     the server's requests are answered here (P5.3, P6.2: the SDK drops
//     them in that era);
//   - an answer to a tools/call (in the 2026-07-28 era, to a tools/list
//     too) carries its result as the server wrote it (src/rawresult.ts), in
//     a JSON body or an SSE stream;
//   - closing a live session lets its requests in flight end, then ends
//     it on the server too (DELETE): the wait is bounded by the close
//     grace, the DELETE by DELETE_BOUND_MS, which the time scale does not
//     shrink (a DELETE is a round trip on the machine, not a rule's time).

import http from "node:http";

import {
  PROTOCOL_VERSION_META_KEY,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type FetchLike,
  type JSONRPCMessage,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/client";

import { ERA_VAR, MODERN_ERA, parseEra, serverRequestAnswer, withoutMeta } from "./era.js";
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

// The code of the error answer given to a request whose stream broke.
const CONNECTION_CLOSED = -32000;

// P10.7: the statuses that do not end the connection (the go-sdk's transient ones).
const TRANSIENT = new Set([429, 500, 502, 503, 504]);

/** modernRun reports whether the run's era is the 2026-07-28 one (main has checked the value). */
function modernRun(): boolean {
  return parseEra(process.env[ERA_VAR]) === MODERN_ERA;
}

function idKey(id: unknown): string {
  return JSON.stringify(id);
}

/**
 * statusError is P5.4 and P10.7: a request answered outside 2xx fails with
 * its status alone, as the reference's go-sdk words it (`sending
 * "<method>": <status text>`, a transient status "rejected by transport:
 * …"); the JSON-RPC error in the body is not read. A 404 names the missing
 * session (its id, empty without one; in the 2026-07-28 era only when
 * there is one).
 */
function statusError(message: JSONRPCMessage, err: unknown, sessionId: string | undefined): unknown {
  if (!(err instanceof SdkHttpError) || !("method" in message)) return err;
  const code = err.status ?? 0;
  if (code < 300) return err;
  const sending = `sending "${message.method}"`;
  if (code === 404 && (sessionId !== undefined || !modernRun())) {
    return new Error(`${sending}: failed to connect (session ID: ${sessionId ?? ""}): session not found`);
  }
  const text = http.STATUS_CODES[code] ?? String(code);
  return new Error(TRANSIENT.has(code) ? `rejected by transport: ${sending}: ${text}` : `${sending}: ${text}`);
}

/** endsConnection is P10.7: an answer outside 2xx but a transient one; server/discover's falls back instead (E2.3). */
function endsConnection(message: JSONRPCMessage, err: unknown): boolean {
  if (!(err instanceof SdkHttpError) || !("method" in message) || message.method === "server/discover") return false;
  const code = err.status ?? 0;
  return (code < 200 || code >= 300) && !TRANSIENT.has(code);
}

export class WatchedHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly inner: StreamableHTTPClientTransport;
  private readonly pending = new Set<string>(); // requests sent, not answered
  private readonly broken = new Map<string, RequestId>(); // requests whose answer stream broke
  private readonly posting = new Set<Promise<void>>(); // notifications being sent (a cancellation)
  private failure?: unknown; // P10.7: what ended the connection
  /** Set once the handshake succeeded: close then ends the session on the server. */
  graceful = false;
  /** Set once the server was opened in the 2026-07-28 era (E3.1). */
  modern = false;
  private started?: Promise<void>;

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
      const answer = this.modern ? serverRequestAnswer(m) : undefined;
      if (answer) this.inner.send(answer).catch((err) => this.onerror?.(err));
      else this.onmessage?.(m);
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

  /** start starts the transport once: discover (src/discover.ts) starts it before the client does. */
  start(): Promise<void> {
    return (this.started ??= this.inner.start());
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.failure !== undefined) throw this.failure; // P10.7: nothing sent
    let key: string | undefined;
    if ("method" in message && "id" in message) {
      key = idKey(message.id);
      this.pending.add(key);
    } else if ("method" in message && message.method === "notifications/cancelled") {
      // The client stopped waiting for that request.
      this.settle(idKey((message.params as { requestId?: unknown } | undefined)?.requestId));
    }
    try {
      const sent = this.inner.send(message, options);
      if (key === undefined) {
        const done = sent.catch(() => {});
        this.posting.add(done);
        void done.then(() => this.posting.delete(done));
      }
      await sent;
    } catch (err) {
      if (key !== undefined) this.settle(key);
      const failed = statusError(message, err, this.inner.sessionId);
      if (endsConnection(message, err)) this.failure ??= failed;
      throw failed;
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
   * close ends the session. An established one (its handshake succeeded)
   * first lets the requests in flight end and the notifications being sent
   * go out (within the close grace, as a stdio server gets it, P2.4), then
   * ends the session on the server (DELETE, P2.5, bounded by
   * DELETE_BOUND_MS; a session opened in the 2026-07-28 era has none).
   */
  async close(): Promise<void> {
    if (this.graceful) {
      this.graceful = false;
      const quiet = new Promise<void>((resolve) => (this.pending.size === 0 ? resolve() : this.idle.push(resolve)));
      await this.within(this.graceMs(), Promise.all([quiet, ...this.posting]).then(() => {}));
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
      this.onmessage?.({ jsonrpc: "2.0", id, error: { code: CONNECTION_CLOSED, message: err.message } });
    }
  }

  /**
   * watch is the transport's fetch: it notes the answer streams that break,
   * and gives an answer to a tools/call its result's text, in a JSON body
   * or an SSE stream (src/rawresult.ts).
   */
  private readonly watch: FetchLike = async (url, init) => {
    let m: Record<string, unknown> | undefined;
    try {
      if (init?.method === "POST" && typeof init.body === "string") m = JSON.parse(init.body) as Record<string, unknown>;
    } catch {
      // not a message of ours
    }
    const method = typeof m?.method === "string" ? m.method : "";
    const id = typeof m?.id === "number" || typeof m?.id === "string" ? (m.id as RequestId) : undefined;
    const modern = typeof (m?.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.[PROTOCOL_VERSION_META_KEY] === "string";
    if (init && m && modern && method !== "" && id === undefined) {
      // E3.1: Mcp-Method on a notification too, and no _meta in its params, as the go-sdk sends it
      // (the SDK sets the header on requests only, and the _meta on notifications too).
      const h = new Headers(init.headers);
      h.set("mcp-method", method);
      init = { ...init, headers: h, body: JSON.stringify(withoutMeta(m as JSONRPCMessage)) };
    }
    // P6: the configured headers replace the transport's own of the same
    // name on every request (it sets Accept and Content-Type of a POST last).
    if (init && Object.keys(this.headers).length > 0) {
      const h = new Headers(init.headers);
      for (const [k, v] of Object.entries(this.headers)) h.set(k, v);
      init = { ...init, headers: h };
    }
    const res = await httpFetch(url, init);
    if (init?.method !== "POST" || !res.body || typeof init.body !== "string") return res;
    if (id === undefined || method === "") return res;
    if (modern && !res.ok && res.status !== 404) {
      // E2.3, E3.2: read by its status alone (the SDK would read a JSON-RPC error in the body).
      await res.body.cancel().catch(() => {});
      return new Response(null, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    const key = idKey(id);
    const marks = method === "tools/call" || (this.modern && method === "tools/list");
    const methodOf = (k: string) => (marks && k === key ? method : undefined);
    const type = (res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    const init2 = { status: res.status, statusText: res.statusText, headers: res.headers };
    if (type === "application/json" && marks) {
      const text = await res.text();
      return new Response(markResponses(text, methodOf) ?? text, init2);
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
    const events = marks ? body.pipeThrough(markEvents((data) => markResponses(data, methodOf))) : body;
    return new Response(events, init2);
  };
}
