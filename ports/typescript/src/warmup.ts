// A warm-up before the service answers: one whole session (handshake, a
// call with a server ping, close) against a tiny MCP endpoint on loopback,
// in the run's era: in the 2026-07-28 era two, one opened by
// server/discover and one that falls back to initialize (/legacy), the
// SDK's schemas of each era being compiled on first use.
//
// Node compiles code on first use, and so does the SDK's schema library:
// the first handshake of a fresh process costs a few hundred milliseconds
// more than the next ones. The harness scales deadlines down to tens of
// milliseconds ("Time", docs/rules.md), so the first real handshake must
// not pay that cost: under a time scale below 1 it is paid here, before the
// service is ready.

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

import { attemptCall } from "./calls.js";
import { emptyServer } from "./config.js";
import { Era, MODERN_ERA } from "./era.js";
import { Pool } from "./pool.js";
import { callOutput } from "./rules.js";
import { Deadlines } from "./time.js";

const SESSION = "warm-up";

/** A minimal Streamable HTTP MCP endpoint of either era: SSE and JSON answers, a server ping. */
function fakeServer() {
  return createServer((req, res) => {
    if (req.method === "DELETE") {
      res.writeHead(204).end();
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, { Allow: "POST, DELETE" }).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const m = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id?: unknown; method?: string };
      const versions = req.url === "/legacy" ? ["2025-11-25"] : ["2026-07-28"];
      const sse = (...events: unknown[]) => {
        res.writeHead(200, { "Content-Type": "text/event-stream", "Mcp-Session-Id": SESSION });
        for (const e of events) res.write(`event: message\ndata: ${JSON.stringify(e)}\n\n`);
        res.end();
      };
      const answer = (result: object) => ({ jsonrpc: "2.0", id: m.id, result: { resultType: "complete", ...result } });
      switch (m.method) {
        case "server/discover": {
          const body = JSON.stringify(answer({ supportedVersions: versions, capabilities: { tools: {} }, ttlMs: 0, cacheScope: "public" }));
          res.writeHead(200, { "Content-Type": "application/json" }).end(body);
          return;
        }
        case "initialize":
          sse(answer({ protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: SESSION, version: "1" } }));
          return;
        case "tools/list": {
          const body = JSON.stringify(answer({ tools: [{ name: "t", description: "d", inputSchema: { type: "object" } }], ttlMs: 0, cacheScope: "public" }));
          res.writeHead(200, { "Content-Type": "application/json" }).end(body);
          return;
        }
        case "tools/call":
          sse(
            { jsonrpc: "2.0", id: 1, method: "ping" },
            { jsonrpc: "2.0", id: 2, method: "roots/list" },
            answer({ content: [{ type: "text", text: "ok" }, { type: "resource_link", uri: "u", name: "n" }], structuredContent: { ok: true } }),
          );
          return;
        default:
          res.writeHead(202).end(); // notifications and answers
      }
    });
  });
}

/** warmUp runs the era's sessions; it never fails (a cold first handshake is only slower). */
export async function warmUp(era: Era, limitMs = 3_000): Promise<void> {
  const server = fakeServer();
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", resolve);
    });
    const { port } = server.address() as AddressInfo;
    const pool = new Pool(new Deadlines(1), era);
    const paths = era === MODERN_ERA ? ["/mcp", "/legacy"] : ["/mcp"];
    const run = (async () => {
      for (const path of paths) {
        const name = `${SESSION}${path}`;
        await pool.attempt(name, { ...emptyServer(), url: `http://127.0.0.1:${port}${path}` });
        const t = await attemptCall(pool, { server: name, tool: "t" }, {});
        if ("result" in t) callOutput(t.result, 0);
      }
      await pool.close();
    })();
    await Promise.race([run, new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)))]);
  } catch {
    // only slower
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    server.close();
  }
}
