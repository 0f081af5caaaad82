// Unit tests of the pure rules (docs/rules.md), with Node's test runner.

import assert from "node:assert/strict";
import { test } from "node:test";

import { catalogAnswer } from "./catalog.js";
import { ERR_BOTH, ERR_NEITHER, emptyServer, serializeConfig, transportOf, validate, wantsSession } from "./config.js";
import { baseName, deadlineText, launcherOf } from "./connect.js";
import { blockJSON, marshal, marshalIndent } from "./gojson.js";
import { goQuote, notFoundText } from "./lookpath.js";
import { callOutput, cap, exposedName, flatten, label, promptLine, sanitize, toolEntry } from "./rules.js";
import { decodeConfig } from "./stored.js";
import { compareUTF8, trimSpace } from "./text.js";
import { parseTimeScale } from "./time.js";

test("P7: sanitize and exposed names", () => {
  assert.equal(sanitize("My Server!"), "My_Server");
  assert.equal(sanitize("ops :: prod"), "ops_prod");
  assert.equal(sanitize("__x__"), "x");
  assert.equal(sanitize("é-ü_1"), "-__1"); // a run is replaced, the "_" beside it stays
  assert.equal(exposedName("My Server!", "echo"), "mcp__My_Server__echo");
});

test("P3: launchers", () => {
  for (const c of ["npx", "/usr/bin/NPX.EXE", "npx.cmd", "UVX", "npx.cmd.exe", "/usr/bin/npx/"]) {
    assert.notEqual(launcherOf(c), undefined, c);
  }
  for (const c of ["npx-wrapper", "node", "npx.exe.cmd", "/npx/x", "uv", "C:\\node\\npx.cmd", " npx"]) {
    assert.equal(launcherOf(c), undefined, c);
  }
  assert.deepEqual(["", "/", "//", "a/b//"].map(baseName), [".", "/", "/", "b"]);
  assert.match(deadlineText("uvx"), /^délai dépassé — uvx télécharge/);
  assert.equal(deadlineText(undefined), "délai dépassé — le serveur n'a pas répondu au handshake en 20s");
});

test("P8: tool entries", () => {
  const t = { name: "x y", title: "T", description: "", inputSchema: null };
  assert.deepEqual(toolEntry("s", t), {
    name: "mcp__s__x_y",
    description: "[MCP: s] T",
    parameters: { type: "object", properties: {} },
  });
  assert.deepEqual(toolEntry("s", { ...t, inputSchema: {} }).parameters, {});
  for (const s of [undefined, null, [], "str", 3]) {
    assert.deepEqual(toolEntry("s", { ...t, inputSchema: s }).parameters, { type: "object", properties: {} });
  }
  assert.deepEqual(toolEntry("s", { ...t, inputSchema: { type: "object" } }).parameters, { type: "object" });
  assert.equal(toolEntry("s", { ...t, title: "" }).description, "[MCP: s] ");
});

test("P11–P13: flattening", () => {
  assert.equal(
    flatten({ content: [{ type: "text", text: " a " }, { type: "image", mimeType: "image/png", data: "x" }, { type: "audio", mimeType: "audio/wav" }] }),
    "a \n[image image/png]\n[audio audio/wav]",
  );
  assert.equal(
    flatten({ content: [{ name: "n", uri: "u", type: "resource_link", _meta: {}, size: 0 }] }),
    '{"type":"resource_link","uri":"u","name":"n","size":0}',
  );
  assert.equal(flatten({ content: [], structuredContent: { b: 1, a: [1, "<"] } }), '{\n  "a": [\n    1,\n    "\\u003c"\n  ],\n  "b": 1\n}');
  assert.equal(callOutput({ content: [] }, 0), "[ok] (aucune sortie)");
  assert.equal(callOutput({ content: [], isError: true }, 0), "[l'outil a renvoyé une erreur]\n");
});

test("P12: the cap counts runes", () => {
  const s = "🙂".repeat(12001);
  assert.equal(cap(s, 0), "🙂".repeat(12000) + "\n…[tronqué]");
  assert.equal(cap("🙂".repeat(12000), 0), "🙂".repeat(12000));
  assert.equal(cap("x".repeat(20000), 20000), "x".repeat(20000));
  assert.equal(cap("x".repeat(13000), 5), "x".repeat(12000) + "\n…[tronqué]");
});

test("P14: prompt line", () => {
  assert.equal(promptLine([]), "");
  assert.equal(promptLine([["a", 0]]), "");
  assert.equal(
    promptLine([["b", 11], ["a", 2]]),
    "\n\nMCP servers connected (their tools are prefixed mcp__<server>__<tool>): a (2), b (11).",
  );
  // P14.2: the formatted strings are sorted, not the names.
  assert.match(promptLine([["a b", 1], ["a", 2]]), /: a \(2\), a b \(1\)\.$/);
  assert.match(promptLine([["a", 2], ["a\t", 1]]), /: a\t \(1\), a \(2\)\.$/);
});

test("P15: labels", () => {
  assert.equal(label({ path: "/a", file: "b" }), "/a");
  assert.equal(label({ name: "n", path: " " }), " "); // taken as sent
  assert.equal(label({ name: "n", path: "" }), "n");
  assert.equal(label({ path: 7, query: " q " }), " q ");
  assert.equal(label({}), "");
  assert.equal(label(null), "");
  assert.equal(label({ b: 1, a: "<&>" }), '{"a":"\\u003c\\u0026\\u003e","b":1}');
  const long = label({ items: ["é".repeat(200)] });
  assert.equal(Array.from(long).length, 121);
  assert.ok(long.endsWith("…"));
  const exact = { k: "x".repeat(120 - '{"k":""}'.length) };
  assert.equal(label(exact), JSON.stringify(exact));
});

test("JSON forms", () => {
  assert.equal(marshal({ "é": 1, z: 2, "\u{1F642}": 3, "\uFFFD": 4 }), '{"z":2,"é":1,"\uFFFD":4,"\u{1F642}":3}');
  assert.equal(marshal([1e21, 1e-7, 0.000001, 123456789, -0, 1.5]), "[1e+21,1e-7,0.000001,123456789,-0,1.5]");
  assert.equal(marshal("\u2028\u2029\n\t\\u0041"), '"\\u2028\\u2029\\n\\t\\\\u0041"');
  assert.equal(marshal("\ud800x"), '"\ufffdx"');
  assert.equal(marshalIndent({}), "{}");
  assert.equal(
    blockJSON({ annotations: { priority: 1, audience: ["user"] }, type: "resource", resource: { text: "t", uri: "u", extra: 1 } }),
    '{"type":"resource","resource":{"uri":"u","text":"t"},"annotations":{"audience":["user"],"priority":1}}',
  );
  assert.equal(
    blockJSON({ type: "resource_link", uri: "u", annotations: { priority: 0, x: true, lastModified: "" } }),
    '{"type":"resource_link","uri":"u","annotations":{}}',
  );
  assert.equal(blockJSON({ type: "resource_link", uri: "u", annotations: null }), '{"type":"resource_link","uri":"u"}');
});

test("C2, C3: transport and validation", () => {
  const s = emptyServer();
  assert.equal(transportOf(s), "");
  assert.equal(validate(s), ERR_NEITHER);
  assert.equal(transportOf({ ...s, command: "  x" }), "stdio");
  assert.equal(transportOf({ ...s, command: " \t", url: " u" }), "http");
  assert.equal(validate({ ...s, command: "c", url: "u" }), ERR_BOTH);
  assert.equal(transportOf({ ...s, command: "c", url: "u" }), "stdio");
  assert.ok(wantsSession({ ...s, command: "c", url: "u" })); // P16.6: the status validates nothing
  assert.ok(!wantsSession({ ...s, command: "c", enabled: false }));
  assert.ok(!wantsSession({ ...s, url: " " }));
});

test("C1, C8: the stored form", () => {
  const cfg = decodeConfig('{"b":{"url":"u","disabledTools":["t"]},"a":{"command":"c","enabled":false,"env":{"K":"V"}},"10":null}');
  assert.equal(cfg.get("b")!.enabled, true);
  assert.equal(cfg.get("a")!.enabled, false);
  assert.equal(cfg.get("10")!.enabled, true);
  assert.equal(
    serializeConfig(cfg),
    '{"10":{"enabled":true},"a":{"command":"c","env":{"K":"V"},"enabled":false},"b":{"url":"u","enabled":true,"disabledTools":["t"]}}',
  );
  assert.equal(serializeConfig(new Map([["<&>", { ...emptyServer(), url: "a\u2028" }]])), '{"\\u003c\\u0026\\u003e":{"url":"a\\u2028","enabled":true}}');
});

test("C8.3: stored fields as Go decodes them", () => {
  const one = (json: string) => decodeConfig(`{"s":${json}}`).get("s");
  assert.deepEqual(one('{"COMMAND":"x","Url":"u","Enabled":false}'), { ...emptyServer(), command: "x", url: "u" }); // C1.2: "Enabled" is not the key
  assert.equal(one('{"enabled":null}')!.enabled, false);
  assert.equal(one('{"enabled":false,"ENABLED":true}')!.enabled, true);
  assert.equal(one('{"url":"a","URL":"b","url":"c","Url":null}')!.url, "c"); // the last wins; null leaves it
  assert.deepEqual(one('{"env":{"A":"1"},"ENV":{"B":null}}')!.env, { A: "1", B: "" }); // a map decodes into the one there
  assert.deepEqual(one('{"argſ":["x",null],"colour":1}')!.args, ["x", ""]); // U+017F folds to s; unknown fields ignored
  assert.equal(one('{"args":"x"}'), undefined);
  assert.equal(one('{"url":5}'), undefined);
  assert.equal(one("[]"), undefined);
});

test("C8.4: what does not decode", () => {
  const names = (text: string) => Array.from(decodeConfig(text).keys());
  for (const t of ["", " ", "[1]", '"s"', "null", "5", '{"a":{}} x', '{"a":', "\ufeff{}"]) assert.deepEqual(names(t), [], t);
  assert.deepEqual(names('{"b":{},"a":{},"c":5,"d":{}}'), ["b", "a"]); // stored order, up to the first failure
  assert.deepEqual(names('{"a":{},"b":{"url":5},"c":{}}'), ["a"]);
  assert.deepEqual(names('{"2":{},"1":{},"x":[]}'), ["2", "1"]);
});

test("P17: catalog entries", () => {
  const entry = { id: "x", name: "X", category: "c", description: "d", homepage: "", runtime: "", command: "k", args: [], env: {}, secrets: [] };
  const [bare, other, node] = catalogAnswer(
    [entry, { ...entry, runtime: "docker", args: ["{workspace}/a{workspace}"], env: { K: "{workspace}" } }, { ...entry, runtime: "node" }],
    "/w",
    (id) => id === "x",
  ) as Record<string, unknown>[];
  assert.deepEqual(bare, { id: "x", name: "X", category: "c", description: "d", command: "k", installed: true, runtimeOk: true });
  assert.deepEqual(other.args, ["/w/a/w"]);
  assert.deepEqual(other.env, { K: "/w" });
  assert.equal(other.runtimeOk, true); // a runtime without a launcher
  assert.equal(typeof node.runtimeOk, "boolean");
});

test("text helpers", () => {
  assert.equal(trimSpace("\u0085 a \u00a0"), "a");
  assert.equal(trimSpace("\ufeffa"), "\ufeffa");
  assert.ok(compareUTF8("\uffff", "\u{10000}") < 0);
  assert.ok("\uffff" > "\u{10000}"); // UTF-16 order differs
});

test("P6: the not-found text", () => {
  assert.equal(notFoundText("mcpparity-missing-server"), 'exec: "mcpparity-missing-server": executable file not found in $PATH');
  assert.equal(goQuote('a"\\\n\x01é'), '"a\\"\\\\\\n\\x01é"');
});

test("time scale", () => {
  assert.equal(parseTimeScale(undefined), 1);
  assert.equal(parseTimeScale("0.01"), 0.01);
  assert.equal(parseTimeScale("1"), 1);
  for (const bad of ["0", "2", "-0.5", "abc", "1s"]) assert.throws(() => parseTimeScale(bad), bad);
});
