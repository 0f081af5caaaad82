// The fetch of the Streamable HTTP transport, on Node's own http module.
//
// The SDK's transport takes any fetch (its `fetch` option). Node's global
// fetch (undici) costs about 100 ms of CPU on its first use and more per
// request than node:http, which matters under the harness's scaled
// deadlines; it also refuses the Fetch standard's blocked ports (port 1 of
// the scenarios' refused server) without dialing. This one sends the
// request as given and answers with a standard Response whose body streams
// the socket: it follows no redirect (the transport asks for none) and
// errors the body when the connection is cut.

import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";

const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

// Statuses whose Response cannot have a body.
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

export function httpFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
  const url = new URL(input);
  const method = (init.method ?? "GET").toUpperCase();
  const signal = init.signal ?? undefined;
  return new Promise((resolve, reject) => {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      reject(new TypeError(`unsupported protocol ${JSON.stringify(url.protocol)}`));
      return;
    }
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    let body: Buffer | undefined;
    if (init.body !== undefined && init.body !== null) {
      if (typeof init.body !== "string") {
        reject(new TypeError("only string bodies are sent"));
        return;
      }
      body = Buffer.from(init.body, "utf8");
      headers["content-length"] = String(body.length);
    }
    const mod = url.protocol === "https:" ? https : http;
    const req = mod.request(url, { method, headers, agent: agents[url.protocol] }, (res) => {
      const h = new Headers();
      const raw = res.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) h.append(raw[i], raw[i + 1]);
      const status = res.statusCode ?? 0;
      let stream: ReadableStream<Uint8Array> | null = null;
      if (NULL_BODY.has(status) || method === "HEAD") {
        res.on("error", () => {});
        res.resume();
      } else {
        stream = Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>;
      }
      resolve(new Response(stream, { status, statusText: res.statusMessage ?? "", headers: h }));
    });
    const onAbort = () => req.destroy(abortReason(signal!) as Error);
    signal?.addEventListener("abort", onAbort, { once: true });
    req.once("close", () => signal?.removeEventListener("abort", onAbort));
    req.on("error", reject); // after the answer, errors reach its body
    req.end(body);
  });
}
