// Tests of the port's input and output: the fetch on node:http, the store,
// and the text of a tools/call result the transports keep.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { httpFetch } from "./fetch.js";
import { JNumber, JObject } from "./ordered.js";
import { RAW_RESULT, listResultOf, markEvents, markResponses, rawResultOf } from "./rawresult.js";
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

test("P11.6: an answer to a tools/call carries its result as written", () => {
  const isCall = (key: string) => (key === "7" || key === '"c"' ? "tools/call" : undefined);
  const raw = '{"content":[{"type":"resource_link","size":1e3,"size":1}],"_meta":"x"}';
  const marked = markResponses(`{"jsonrpc":"2.0", "id":7, "result":${raw}}`, isCall)!;
  assert.equal(marked, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[],"${RAW_RESULT}":${JSON.stringify(raw)}}}`);
  // read back in order, duplicates and numbers as written
  const v = rawResultOf(JSON.parse(marked).result) as JObject;
  const block = ((v.entries[0][1] as unknown[])[0] as JObject).entries;
  assert.deepEqual(block.slice(1), [["size", new JNumber("1e3")], ["size", new JNumber("1")]]);
  assert.equal(markResponses('{"jsonrpc":"2.0","id":"c","result":null}', isCall), `{"jsonrpc":"2.0","id":"c","result":{"resultType":"complete","content":[],"${RAW_RESULT}":"null"}}`);
  assert.equal(markResponses('[{"jsonrpc":"2.0","id":7,"result":5},{"jsonrpc":"2.0","id":8,"result":{}}]', isCall), `[{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[],"${RAW_RESULT}":"5"}},{"jsonrpc":"2.0","id":8,"result":{}}]`);
  // not an answer to a call: left to the SDK as it came
  for (const text of ['{"jsonrpc":"2.0","id":8,"result":{}}', '{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m"}}', '{"jsonrpc":"2.0","id":7,"method":"x"}', "{", "5"]) {
    assert.equal(markResponses(text, isCall), undefined, text);
  }
  // a result that came without its text is taken as the SDK parsed it
  assert.deepEqual(rawResultOf({ isError: true }), new JObject([["isError", true]]));
});

test("P8: an answer to a tools/list carries its result as written, read as JSON", () => {
  const isList = (key: string) => (key === "3" ? "tools/list" : undefined);
  const raw = '{"tools":[{"name":"a"}],"tools":[{"name":"b"}]}';
  const marked = markResponses(`{"jsonrpc":"2.0","id":3,"result":${raw}}`, isList)!;
  assert.equal(marked, `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[],"${RAW_RESULT}":${JSON.stringify(raw)}}}`);
  assert.deepEqual(listResultOf(JSON.parse(marked).result), { tools: [{ name: "b" }] });
  assert.deepEqual(listResultOf(JSON.parse(markResponses('{"jsonrpc":"2.0","id":3,"result":null}', isList)!).result), {});
  assert.deepEqual(listResultOf({ tools: [] }), { tools: [] });
});

test("P11.6: an SSE answer to a tools/call, in any chunks", async () => {
  const chunks = [
    "id: e1\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",",
    '"id":1,"result":null}\r',
    "\n\r\n: ping\n\n",
    'data: {"jsonrpc":"2.0",\ndata:"id":2,"result":{}}\n\n',
    'retry: 5\n\ndata: {"jsonrpc":"2.0","id":1,"result":{"a":1}}\r\rdata: cut',
  ];
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
      controller.close();
    },
  });
  const text = await new Response(source.pipeThrough(markEvents((data) => markResponses(data, (key) => (key === "1" ? "tools/call" : undefined))))).text();
  assert.equal(
    text,
    [
      `id: e1\nevent: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"${RAW_RESULT}":"null"}}\n\n`,
      ": ping\n\n",
      'data: {"jsonrpc":"2.0",\ndata:"id":2,"result":{}}\n\n',
      "retry: 5\n\n",
      `data: {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"${RAW_RESULT}":"{\\"a\\":1}"}}\n\n`,
      "data: cut",
    ].join(""),
  );
});
