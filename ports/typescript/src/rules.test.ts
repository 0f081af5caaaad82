// Unit tests of the pure rules (docs/rules.md), with Node's test runner.

import assert from "node:assert/strict";
import { test } from "node:test";

import { catalogAnswer } from "./catalog.js";
import { ERR_BOTH, ERR_NEITHER, emptyServer, serializeConfig, transportOf, validate, wantsSession } from "./config.js";
import { baseName, deadlineText, launcherOf } from "./connect.js";
import { marshal, marshalIndent } from "./gojson.js";
import { goQuote, notFoundText } from "./lookpath.js";
import { parseOrdered } from "./ordered.js";
import { ResultError, base64Decode, readResult } from "./results.js";
import { callOutput, cap, exposedName, label, promptLine, sanitize, toolEntry } from "./rules.js";
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

/** out is the output of a call whose result a server wrote as raw (P11–P13). */
function out(raw: string, contextWindow = 0): string {
  const v = parseOrdered(raw);
  assert.notEqual(v, undefined, raw);
  return callOutput(readResult(v!), contextWindow);
}

/** fails is why a result written as raw cannot be read (P11.6). */
function fails(raw: string): string {
  try {
    readResult(parseOrdered(raw)!);
  } catch (e) {
    if (e instanceof ResultError) return e.message;
    throw e;
  }
  return assert.fail(`${raw} was read`);
}

test("P11–P13: flattening", () => {
  assert.equal(
    out('{"content":[{"type":"text","text":" a "},{"type":"image","mimeType":"image/png","data":"aGk="},{"type":"audio","mimeType":"audio/wav"}]}'),
    "a \n[image image/png]\n[audio audio/wav]",
  );
  assert.equal(out('{"content":[{"name":"n","uri":"u","type":"resource_link","_meta":{},"size":0}]}'), '{"type":"resource_link","uri":"u","name":"n","size":0}');
  assert.equal(out('{"content":[],"structuredContent":{"b":1,"a":[1,"<"]}}'), '{\n  "a": [\n    1,\n    "\\u003c"\n  ],\n  "b": 1\n}');
  assert.equal(out('{"content":[]}'), "[ok] (aucune sortie)");
  assert.equal(out('{"content":[],"isError":true}'), "[l'outil a renvoyé une erreur]\n");
});

test("P11.4: a field missing or null is empty", () => {
  assert.equal(out('{"content":[{"type":"image","data":"aGk="}]}'), "[image ]");
  assert.equal(out('{"content":[{"type":"audio","data":"aGk=","mimeType":null}]}'), "[audio ]");
  assert.equal(out('{"content":[{"type":"text"},{"type":"text","text":"b"}]}'), "b");
  assert.equal(out('{"content":[{"type":"text","text":null}]}'), "[ok] (aucune sortie)");
  assert.equal(out('{"content":[{"type":"resource_link","name":"n","x":1}]}'), '{"type":"resource_link","name":"n"}');
  assert.equal(out('{"content":[{"type":"resource"}]}'), '{"type":"resource"}');
  // unknown members, annotations null, names in another case (another member)
  assert.equal(out('{"content":[{"type":"text","text":"a","annotations":null,"extra":{"z":1},"Text":5,"TYPE":[],"__proto__":5}]}'), "a");
  // a member given twice: the later one, decoded into the value there as Go
  // does: null leaves a string, empties an object; objects merge; a list's
  // elements are decoded into those of the same index
  assert.equal(out('{"content":[{"type":"text","text":"a","text":null}]}'), "a");
  assert.equal(out('{"content":[{"type":"text","text":"a","text":"b"}]}'), "b");
  assert.equal(out('{"content":[{"type":"resource_link","annotations":{"priority":1},"annotations":null}]}'), '{"type":"resource_link"}');
  assert.equal(out('{"content":[{"type":"resource_link","_meta":{"a":1},"_meta":{"b":2}}]}'), '{"type":"resource_link","_meta":{"a":1,"b":2}}');
  assert.equal(out('{"content":[{"type":"resource","resource":{"uri":"a"},"resource":{"text":"b"}}]}'), '{"type":"resource","resource":{"uri":"a","text":"b"}}');
  assert.equal(out('{"content":[{"type":"text","text":"a"}],"content":[{"type":"text"}]}'), "a");
  assert.equal(out('{"content":[{"type":"text","text":"a"}],"content":null}'), "[ok] (aucune sortie)");
  // what Go reads besides: -0 as a size, null icons and list elements, bytes as a list of integers
  assert.equal(
    out('{"content":[{"type":"resource_link","size":-0,"icons":[{"mimeType":"m","src":"s","x":1},null],"annotations":{"audience":["a",null]}}]}'),
    '{"type":"resource_link","size":0,"annotations":{"audience":["a",""]},"icons":[{"src":"s","mimeType":"m"},{"src":""}]}',
  );
  assert.equal(out('{"content":[{"type":"image","mimeType":"m","data":[104,105]}]}'), "[image m]");
  assert.equal(out('{"content":[{"type":"text","text":"a\\ud800"}]}'), "a\ufffd");
});

test("P11.5: absent results, structured content of any type", () => {
  for (const raw of ["null", "{}", '{"content":null}', '{"content":[],"structuredContent":null}', '{"isError":null,"_meta":null}']) {
    assert.equal(out(raw), "[ok] (aucune sortie)", raw);
  }
  assert.equal(out('{"structuredContent":{"b":1,"a":[]}}'), '{\n  "a": [],\n  "b": 1\n}');
  assert.equal(out('{"content":[],"structuredContent":5}'), "5");
  assert.equal(out('{"content":[],"structuredContent":"x<y"}'), '"x\\u003cy"');
  assert.equal(out('{"content":[],"structuredContent":[1,"a",{}]}'), '[\n  1,\n  "a",\n  {}\n]');
  assert.equal(out('{"content":[],"structuredContent":false}'), "false");
  assert.equal(out('{"content":[],"structuredContent":{"a":1},"structuredContent":null}'), "[ok] (aucune sortie)");
  assert.equal(out('{"content":[{"type":"text","text":"boom"}],"isError":null}'), "boom");
  assert.equal(out('{"content":[{"type":"text","text":"x"}],"isError":true,"isError":null}'), "[l'outil a renvoyé une erreur]\nx");
});

test("P11.6: what the go-sdk cannot read fails the result", () => {
  assert.equal(fails('{"content":[{"type":"text","text":"a"},{"type":"video","uri":"x"}]}'), 'unrecognized content type "video"');
  assert.equal(fails('{"content":[{"text":"a"}]}'), 'unrecognized content type ""');
  assert.equal(fails('{"content":[{"type":null}]}'), 'unrecognized content type ""');
  assert.equal(fails('{"content":[{"type":"TEXT"}]}'), 'unrecognized content type "TEXT"');
  assert.equal(fails('{"content":[{"type":"text","text":"a"},null]}'), "nil content");
  assert.equal(fails('{"content":[{"type":"tool_result","content":[{"type":"tool_use"}]}]}'), 'tool_result nested content: invalid content type "tool_use"');
  assert.equal(fails('{"content":[{"type":"tool_result","content":[null]}]}'), "tool_result nested content: nil content");
  assert.equal(fails('{"content":[{"type":"image","data":"%%%","mimeType":"image/png"}]}'), "illegal base64 data at input byte 0");
  assert.equal(fails('{"content":[{"type":"image","data":"aGk","mimeType":"m"}]}'), "illegal base64 data at input byte 0");
  assert.equal(fails('{"content":[{"type":"text","text":"a","content":[{"type":"image","data":"aGk"}]}]}'), "illegal base64 data at input byte 0");
  assert.equal(fails('{"content":[{"type":"resource_link","size":1e3}]}'), "json: cannot unmarshal number 1e3 into content.0.size of type int64");
  // every member of the table has its JSON type, whatever the block's type
  for (const raw of [
    '{"content":[{"type":"text","text":5}]}',
    '{"content":[{"type":"text","text":"a","text":5,"text":"b"}]}',
    '{"content":[{"type":"text","text":"a"}],"isError":"true"}',
    '{"content":{"type":"text","text":"a"}}',
    '{"content":[5]}',
    '{"content":[{"type":"text","text":"a","size":"1"}]}',
    '{"content":[{"type":"resource_link","size":1.0}]}',
    '{"content":[{"type":"resource_link","size":9223372036854775808}]}',
    '{"content":[{"type":"image","data":[256]}]}',
    '{"content":[{"type":"image","data":[-0]}]}',
    '{"content":[{"type":"text","annotations":{"priority":"x"}}]}',
    '{"content":[{"type":"text","annotations":{"priority":1e400}}]}',
    '{"content":[{"type":"text","annotations":{"audience":"user"}}]}',
    '{"content":[{"type":"resource_link","icons":[5]}]}',
    '{"content":[{"type":"resource_link","icons":[{"sizes":"x"}]}]}',
    '{"content":[{"type":"text","input":[]}]}',
    '{"content":[{"type":"resource","resource":{"uri":5}}]}',
    '{"content":[{"type":"resource","resource":[]}]}',
    '{"content":[{"type":"text","text":"a","content":{}}]}',
    '{"content":[],"_meta":"x"}',
    '{"content":[],"structuredContent":{"a":1e400}}',
    "[]",
    '"x"',
    "5",
    "true",
  ]) {
    assert.match(fails(raw), /^json: cannot unmarshal /, raw);
  }
  // read: only a tool_result's own blocks are blocks the pool shows
  assert.equal(out('{"content":[{"type":"text","text":"a","content":[{"type":"video"},null]}]}'), "a");
  assert.equal(out('{"content":[{"type":"resource_link","size":9223372036854775807}]}'), '{"type":"resource_link","size":9223372036854775807}');
});

test("P11.6: base64 as Go's standard encoding decodes it", () => {
  const text = (s: string) => Buffer.from(base64Decode(s)).toString("latin1");
  assert.equal(text(""), "");
  assert.equal(text("aGk="), "hi");
  assert.equal(text("aG\r\nk="), "hi");
  assert.equal(text("YQ=\n="), "a");
  assert.equal(text("YR=="), "a"); // bits past the last byte are ignored
  assert.equal(text("\r"), "");
  for (const [s, at] of [["aGk", 0], ["YQ=", 3], ["Y Q==", 1], ["aGk=aGk=", 4], ["YWJjZA=x", 6], ["=", 0], ["YQ==\n=", 5], ["YW\u00e9", 2], ["aGk-", 3], ["aGk_", 3]] as const) {
    assert.throws(() => base64Decode(s), { message: `illegal base64 data at input byte ${at}` }, s);
  }
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
    out('{"content":[{"annotations":{"priority":1,"audience":["user"]},"type":"resource","resource":{"text":"t","uri":"u","extra":1}}]}'),
    '{"type":"resource","resource":{"uri":"u","text":"t"},"annotations":{"audience":["user"],"priority":1}}',
  );
  assert.equal(
    out('{"content":[{"type":"resource_link","uri":"u","annotations":{"priority":0,"x":true,"lastModified":""}}]}'),
    '{"type":"resource_link","uri":"u","annotations":{}}',
  );
  assert.equal(out('{"content":[{"type":"resource_link","uri":"u","annotations":null}]}'), '{"type":"resource_link","uri":"u"}');
});

test("J1.4: tool_use and tool_result blocks, resources", () => {
  assert.equal(
    out('{"content":[{"type":"tool_use","name":"n","id":"i","input":{"b":1,"a":2},"x":1,"_meta":{"z":1}}]}'),
    '{"type":"tool_use","id":"i","name":"n","input":{"a":2,"b":1},"_meta":{"z":1}}',
  );
  assert.equal(out('{"content":[{"type":"tool_use","input":null,"annotations":{"priority":1}}]}'), '{"type":"tool_use","id":"","name":"","input":{}}');
  assert.equal(
    out('{"content":[{"type":"tool_result","_meta":{"m":1},"toolUseId":"i","isError":true,"content":[{"type":"image","data":"aGk=","mimeType":"x"}],"structuredContent":{"b":1}}]}'),
    '{"type":"tool_result","toolUseId":"i","content":[{"type":"image","mimeType":"x","data":"aGk="}],"structuredContent":{"b":1},"isError":true,"_meta":{"m":1}}',
  );
  assert.equal(out('{"content":[{"type":"tool_result"}]}'), '{"type":"tool_result","toolUseId":"","content":[]}');
  assert.equal(
    out('{"content":[{"type":"tool_result","content":[{"type":"text","annotations":{},"_meta":{}},{"type":"resource","resource":{}}],"structuredContent":""}]}'),
    '{"type":"tool_result","toolUseId":"","content":[{"type":"text","annotations":{}},{"type":"resource","resource":{"uri":""}}],"structuredContent":""}',
  );
  // bytes are written again in the standard encoding
  assert.equal(out('{"content":[{"type":"resource","resource":{"blob":"aG\\nk="}}]}'), '{"type":"resource","resource":{"uri":"","blob":"aGk="}}');
  assert.equal(out('{"content":[{"type":"resource","resource":{"blob":""}}]}'), '{"type":"resource","resource":{"uri":"","blob":""}}');
  assert.equal(out('{"content":[{"type":"tool_result","content":[{"type":"audio","data":[104,105]}]}]}'), '{"type":"tool_result","toolUseId":"","content":[{"type":"audio","data":"aGk="}]}');
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
