// Tests of the port's input and output: the fetch on node:http and the store.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { httpFetch } from "./fetch.js";
import { Store } from "./store.js";

async function serve(handler: Parameters<typeof createServer>[1]) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

test("fetch: a POST, its headers and its streamed answer", async () => {
  const s = await serve((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      res.writeHead(200, { "Content-Type": "text/event-stream", "Mcp-Session-Id": "s1" });
      res.end(`data: ${body} ${req.headers["x-api-key"]}\n\n`);
    });
  });
  try {
    const r = await httpFetch(s.url, { method: "POST", headers: { "X-Api-Key": "k3y" }, body: "héllo" });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("mcp-session-id"), "s1");
    assert.equal(await r.text(), "data: héllo k3y\n\n");
    const d = await httpFetch(s.url, { method: "DELETE" });
    assert.equal(d.status, 200);
  } finally {
    s.close();
  }
});

test("fetch: an empty 202, a 204 without body", async () => {
  const s = await serve((req, res) => res.writeHead(req.method === "DELETE" ? 204 : 202).end());
  try {
    assert.equal(await (await httpFetch(s.url, { method: "POST", body: "{}" })).text(), "");
    const d = await httpFetch(s.url, { method: "DELETE" });
    assert.equal(d.status, 204);
    assert.equal(d.body, null);
  } finally {
    s.close();
  }
});

test("fetch: connection refused, cut answer, abort", async () => {
  await assert.rejects(httpFetch("http://127.0.0.1:1/mcp"), /ECONNREFUSED 127\.0\.0\.1:1/);
  const s = await serve((req, res) => {
    if (req.url === "/cut") {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.write(": ok\n\n");
      setTimeout(() => res.destroy(), 20);
      return;
    }
    // never answers
  });
  try {
    const r = await httpFetch(s.url.replace("/mcp", "/cut"));
    await assert.rejects(r.text(), /aborted/);
    const stop = new AbortController();
    const pending = httpFetch(s.url, { signal: stop.signal });
    setTimeout(() => stop.abort(new Error("stopped")), 20);
    await assert.rejects(pending, /stopped/);
  } finally {
    s.close();
  }
});

test("store: atomic writes, raw seed, null when empty", () => {
  const dir = mkdtempSync(join(tmpdir(), "mcpparity-ts-"));
  try {
    const st = new Store(dir);
    assert.equal(st.raw(), undefined);
    assert.equal(st.read().size, 0);
    st.writeRaw('{"legacy":{"command":"x"}}');
    assert.equal(st.raw(), '{"legacy":{"command":"x"}}');
    const cfg = st.read();
    assert.equal(cfg.get("legacy")!.enabled, true);
    st.write(cfg);
    assert.equal(st.raw(), '{"legacy":{"command":"x","enabled":true}}');
    assert.deepEqual(readdirSync(dir), ["mcp.json"]); // no temporary file left
    st.writeRaw('"not an object of servers"');
    assert.equal(st.read().size, 0); // C8.4: no servers, no error
    rmSync(join(dir, "mcp.json"));
    mkdirSync(join(dir, "mcp.json")); // a store that cannot be read
    assert.equal(st.read().size, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
