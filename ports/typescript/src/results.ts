// A tools/call result read as the Go pool's go-sdk v1.6.1 reads it
// (P11.4–P11.6, docs/rules.md), and its blocks written in the go-sdk's JSON
// forms (J1.4).
//
// The go-sdk decodes a result into Go structs (its wireContent and the
// types around it) with a JSON decoder that matches member names exactly.
// The reader mirrors that: each member of the table of P11.6 has a Go type
// (a decoder below), and a value is decoded *into* the one already there,
// as a Go decoder does when a member is given twice:
//
//   - unknown members are ignored; a member of another JSON type than its
//     Go type's fails the whole result, whatever the block's type;
//   - null leaves a string, a boolean or a number as it was, and empties a
//     pointer, a list, a map or an `any` (absent either way when given once);
//   - a string, a boolean, a number or an `any` given again is replaced; an
//     object (a map, or a struct behind a pointer) given again is decoded into
//     the one there (its members merged), and so are a list's elements, each
//     into the element of the same index;
//   - `data` and `blob` are bytes: a base64 string (Go's standard encoding:
//     padded, line breaks skipped) or, as Go decoders also take, a list of
//     integers 0–255; `size` is an int64, written without fraction or
//     exponent.
//
// Then the blocks are made of the decoded ones, as the go-sdk's
// contentFromWire does: a null block fails the result (`nil content`), so
// does an unknown type, and a tool_result's own blocks must be of the first
// five types. Each block keeps the fields of its type only.

import { marshal, Ordered } from "./gojson.js";
import { JNumber, JObject, JValue } from "./ordered.js";

/** ResultError is why a result cannot be read: the call fails (P11.6, P10.3). */
export class ResultError extends Error {}

/** GoMap is a decoded map[string]any (a null-prototype object). */
export type GoMap = Record<string, unknown>;

/** Bytes are decoded []byte: null is Go's nil, an empty array an empty (non-nil) slice. */
export type Bytes = Uint8Array | null;

export interface Annotations {
  audience: string[] | null;
  lastModified: string;
  priority: number;
}

export interface Icon {
  src: string;
  mimeType: string;
  sizes: string[] | null;
  theme: string;
}

export interface Resource {
  uri: string;
  mimeType: string;
  text: string;
  blob: Bytes;
  meta: GoMap | null;
}

/**
 * Wire is a block as decoded (the go-sdk's wireContent): every member of
 * every type. `structuredContent` undefined is Go's nil.
 */
export interface Wire {
  type: string;
  text: string;
  mimeType: string;
  data: Bytes;
  resource: Resource | null;
  uri: string;
  name: string;
  title: string;
  description: string;
  size: bigint | null;
  meta: GoMap | null;
  annotations: Annotations | null;
  icons: Icon[] | null;
  id: string;
  input: GoMap | null;
  toolUseId: string;
  content: (Wire | null)[] | null;
  structuredContent: unknown;
  isError: boolean;
}

/** Block is a block of a known type, holding the fields of its type only. */
export interface Block extends Omit<Wire, "content"> {
  content: Block[] | null; // a tool_result's own blocks
}

/** CallResult is a result as the pool reads it (P11, P13). */
export interface CallResult {
  content: Block[];
  structuredContent: unknown; // undefined: absent (Go's nil)
  isError: boolean;
}

// --- Decoders: one per Go type of P11.6's table. ---------------------------

/** A Decoder decodes v into old, the value already there; at names the member. */
type Decoder<T> = (v: JValue, old: T, at: string) => T;

function kind(v: JValue): string {
  if (v === null) return "null";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (v instanceof JNumber) return `number ${v.literal}`;
  return Array.isArray(v) ? "array" : "object";
}

function typeError(v: JValue, at: string, goType: string): ResultError {
  return new ResultError(`json: cannot unmarshal ${kind(v)} into ${at || "the result"} of type ${goType}`);
}

function join(at: string, name: string | number): string {
  return at === "" ? String(name) : `${at}.${name}`;
}

/**
 * wellFormed is a string as Go decodes it: an escaped lone surrogate
 * (`\ud800`) is U+FFFD.
 */
export function wellFormed(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

const str: Decoder<string> = (v, old, at) => {
  if (v === null) return old;
  if (typeof v !== "string") throw typeError(v, at, "string");
  return wellFormed(v);
};

const bool: Decoder<boolean> = (v, old, at) => {
  if (v === null) return old;
  if (typeof v !== "boolean") throw typeError(v, at, "bool");
  return v;
};

/** float64: any number within its range (1e400 is not). */
const float64: Decoder<number> = (v, old, at) => {
  if (v === null) return old;
  if (!(v instanceof JNumber) || !Number.isFinite(v.value)) throw typeError(v, at, "float64");
  return v.value;
};

const INTEGER = /^-?(?:0|[1-9]\d*)$/;

/** integer reads an integer literal (no fraction, no exponent) within [min, max]. */
function integer(v: JValue, at: string, goType: string, min: bigint, max: bigint): bigint {
  if (!(v instanceof JNumber) || !INTEGER.test(v.literal)) throw typeError(v, at, goType);
  const n = BigInt(v.literal);
  if (n < min || n > max) throw typeError(v, at, goType);
  return n;
}

/** size is a *int64: null empties it. */
const int64: Decoder<bigint | null> = (v, _old, at) =>
  v === null ? null : integer(v, at, "int64", -(2n ** 63n), 2n ** 63n - 1n);

/** uint8 is an element of a list of bytes: unsigned (not even -0). */
const uint8: Decoder<number> = (v, old, at) => {
  if (v === null) return old;
  if (v instanceof JNumber && v.literal.startsWith("-")) throw typeError(v, at, "uint8");
  return Number(integer(v, at, "uint8", 0n, 255n));
};

/** bytes is a []byte: a base64 string, or a list of integers 0–255. */
const bytes: Decoder<Bytes> = (v, old, at) => {
  if (v === null) return null;
  if (typeof v === "string") return base64Decode(wellFormed(v));
  if (!Array.isArray(v)) throw typeError(v, at, "[]uint8");
  return Uint8Array.from(v, (e, i) => uint8(e, old !== null && i < old.length ? old[i] : 0, join(at, i)));
};

/** list is a Go slice of T: its elements decoded into those of the same index. */
function list<T>(elem: Decoder<T>, zero: () => T, goType: string): Decoder<T[] | null> {
  return (v, old, at) => {
    if (v === null) return null;
    if (!Array.isArray(v)) throw typeError(v, at, goType);
    return v.map((e, i) => elem(e, old !== null && i < old.length ? old[i] : zero(), join(at, i)));
  };
}

/** pointer is a *T: null empties it, an object is decoded into the one there. */
function pointer<T>(elem: Decoder<T>, zero: () => T): Decoder<T | null> {
  return (v, old, at) => (v === null ? null : elem(v, old ?? zero(), at));
}

/** Members maps each member name (matched exactly) to its field and decoder. */
type Members<T> = Map<string, [keyof T, Decoder<unknown>]>;
type Member<T> = [string, keyof T, Decoder<unknown>];

/** memberOf makes the members of T: a name, the field it fills, the field's decoder. */
function memberOf<T>() {
  return <K extends keyof T>(name: string, field: K, decode: Decoder<T[K]>): Member<T> => [
    name,
    field,
    decode as unknown as Decoder<unknown>,
  ];
}

/** struct is a Go struct: members matched exactly, unknown ones ignored, null a no-op. */
function struct<T extends object>(goType: string, members: () => Members<T>): Decoder<T> {
  let table: Members<T> | undefined; // built on first use: wireContent holds itself
  return (v, old, at) => {
    if (v === null) return old;
    if (!(v instanceof JObject)) throw typeError(v, at, goType);
    table ??= members();
    const out = { ...old };
    for (const [name, e] of v.entries) {
      const m = table.get(name);
      if (m === undefined) continue;
      const [field, decode] = m;
      out[field] = decode(e, out[field], join(at, name)) as T[keyof T];
    }
    return out;
  };
}

function members<T>(entries: Member<T>[]): Members<T> {
  return new Map(entries.map(([name, field, decode]) => [name, [field, decode]]));
}

/** anyValue is a JSON value decoded into a Go `any`: numbers as float64. */
function anyValue(v: JValue, at: string): unknown {
  if (v === null || typeof v === "boolean") return v;
  if (typeof v === "string") return wellFormed(v);
  if (v instanceof JNumber) return float64(v, 0, at);
  if (Array.isArray(v)) return v.map((e, i) => anyValue(e, join(at, i)));
  const out: GoMap = Object.create(null);
  for (const [k, e] of v.entries) out[wellFormed(k)] = anyValue(e, join(at, k));
  return out;
}

/** any is a member of type `any`: null empties it, anything else replaces it. */
const any: Decoder<unknown> = (v, _old, at) => (v === null ? undefined : anyValue(v, at));

/** map is a map[string]any: decoded into the map already there (keys merged). */
const map: Decoder<GoMap | null> = (v, old, at) => {
  if (v === null) return null;
  if (!(v instanceof JObject)) throw typeError(v, at, "map[string]any");
  const out: GoMap = Object.assign(Object.create(null), old);
  for (const [k, e] of v.entries) out[wellFormed(k)] = anyValue(e, join(at, k));
  return out;
};

const zeroAnnotations = (): Annotations => ({ audience: null, lastModified: "", priority: 0 });
const zeroIcon = (): Icon => ({ src: "", mimeType: "", sizes: null, theme: "" });
const zeroResource = (): Resource => ({ uri: "", mimeType: "", text: "", blob: null, meta: null });

function zeroWire(): Wire {
  return {
    type: "", text: "", mimeType: "", data: null, resource: null, uri: "", name: "", title: "",
    description: "", size: null, meta: null, annotations: null, icons: null, id: "", input: null,
    toolUseId: "", content: null, structuredContent: undefined, isError: false,
  };
}

const strings = list(str, () => "", "[]string");
const A = memberOf<Annotations>();
const I = memberOf<Icon>();
const R = memberOf<Resource>();
const W = memberOf<Wire>();

const annotations = struct<Annotations>("Annotations", () =>
  members<Annotations>([
    A("audience", "audience", strings),
    A("lastModified", "lastModified", str),
    A("priority", "priority", float64),
  ]),
);

const icon = struct<Icon>("Icon", () =>
  members<Icon>([
    I("src", "src", str),
    I("mimeType", "mimeType", str),
    I("sizes", "sizes", strings),
    I("theme", "theme", str),
  ]),
);

const resource = struct<Resource>("ResourceContents", () =>
  members<Resource>([
    R("uri", "uri", str),
    R("mimeType", "mimeType", str),
    R("text", "text", str),
    R("blob", "blob", bytes),
    R("_meta", "meta", map),
  ]),
);

/** blocks is a content list: []*wireContent (made on first use: a block holds blocks). */
let blockList: Decoder<(Wire | null)[] | null> | undefined;
const blocks: Decoder<(Wire | null)[] | null> = (v, old, at) =>
  (blockList ??= list(pointer(wire, zeroWire), () => null, "[]*wireContent"))(v, old, at);

/** wire is a block as the go-sdk decodes it: every member of the table, whatever the block's type. */
const wire: Decoder<Wire> = struct<Wire>("wireContent", () =>
  members<Wire>([
    W("type", "type", str),
    W("text", "text", str),
    W("mimeType", "mimeType", str),
    W("data", "data", bytes),
    W("resource", "resource", pointer(resource, zeroResource)),
    W("uri", "uri", str),
    W("name", "name", str),
    W("title", "title", str),
    W("description", "description", str),
    W("size", "size", int64),
    W("_meta", "meta", map),
    W("annotations", "annotations", pointer(annotations, zeroAnnotations)),
    W("icons", "icons", list(icon, zeroIcon, "[]Icon")),
    W("id", "id", str),
    W("input", "input", map),
    W("toolUseId", "toolUseId", str),
    W("content", "content", blocks),
    W("structuredContent", "structuredContent", any),
    W("isError", "isError", bool),
  ]),
);

interface WireResult {
  content: (Wire | null)[] | null;
  structuredContent: unknown;
  isError: boolean;
  meta: GoMap | null;
}

const C = memberOf<WireResult>();

const result = struct<WireResult>("CallToolResult", () =>
  members<WireResult>([
    C("content", "content", blocks),
    C("structuredContent", "structuredContent", any),
    C("isError", "isError", bool),
    C("_meta", "meta", map),
  ]),
);

// --- Blocks of known types (the go-sdk's contentFromWire). -----------------

/** The types a block may have; a tool_result's own blocks, the first five. */
const BLOCK_TYPES = ["text", "image", "audio", "resource_link", "resource", "tool_use", "tool_result"];
const NESTED_TYPES = BLOCK_TYPES.slice(0, 5);

/** The fields each type keeps (the go-sdk's fromWire of each type). */
const TYPE_FIELDS: Record<string, (keyof Wire)[]> = {
  text: ["text", "meta", "annotations"],
  image: ["mimeType", "data", "meta", "annotations"],
  audio: ["mimeType", "data", "meta", "annotations"],
  resource_link: ["uri", "name", "title", "description", "mimeType", "size", "meta", "annotations", "icons"],
  resource: ["resource", "meta", "annotations"],
  tool_use: ["id", "name", "input", "meta"],
  tool_result: ["toolUseId", "structuredContent", "isError", "meta"],
};

function toBlocks(wires: (Wire | null)[] | null, allowed?: string[]): Block[] {
  return (wires ?? []).map((w) => toBlock(w, allowed));
}

function toBlock(w: Wire | null, allowed?: string[]): Block {
  if (w === null) throw new ResultError("nil content");
  if (allowed !== undefined && !allowed.includes(w.type)) throw new ResultError(`invalid content type ${goQuote(w.type)}`);
  const fields = Object.hasOwn(TYPE_FIELDS, w.type) ? TYPE_FIELDS[w.type] : undefined;
  if (fields === undefined) throw new ResultError(`unrecognized content type ${goQuote(w.type)}`);
  const block: Block = { ...zeroWire(), type: w.type, content: null };
  for (const f of fields) (block as unknown as Record<string, unknown>)[f] = w[f];
  if (w.type === "tool_result" && w.content !== null) {
    try {
      block.content = toBlocks(w.content, NESTED_TYPES);
    } catch (e) {
      throw new ResultError(`tool_result nested content: ${(e as Error).message}`);
    }
  }
  return block;
}

function goQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * readResult reads a tools/call result (P11.4–P11.6): null reads as an
 * empty result; anything the go-sdk cannot read throws a ResultError.
 */
export function readResult(v: JValue): CallResult {
  const w = result(v, { content: null, structuredContent: undefined, isError: false, meta: null }, "");
  return { content: toBlocks(w.content), structuredContent: w.structuredContent, isError: w.isError };
}

// --- Base64 as Go's encoding/base64 StdEncoding decodes it. ----------------

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DECODE = new Int16Array(256).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;
const PAD = 0x3d; // "="

function isNewline(c: number): boolean {
  return c === 0x0a || c === 0x0d;
}

function corrupt(at: number): ResultError {
  return new ResultError(`illegal base64 data at input byte ${at}`);
}

/**
 * base64Decode decodes s as Go's base64.StdEncoding.Decode does: standard
 * alphabet, padding required, "\r" and "\n" skipped anywhere, bits past the
 * last byte ignored; offsets of errors are those of the UTF-8 bytes.
 */
export function base64Decode(s: string): Uint8Array {
  const src = Buffer.from(s, "utf8");
  const out: number[] = [];
  let si = 0;
  while (si < src.length) {
    const q = [0, 0, 0, 0];
    let dlen = 4;
    let j = 0;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Uint8Array.from(out);
        throw corrupt(si - j); // padding is required
      }
      const c = src[si++];
      if (DECODE[c] >= 0) {
        q[j] = DECODE[c];
        continue;
      }
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== PAD) throw corrupt(si - 1);
      if (j < 2) throw corrupt(si - 1); // "=" too early
      if (j === 2) {
        // "==" expected: the first one read, line breaks skipped
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) throw corrupt(src.length);
        if (src[si] !== PAD) throw corrupt(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      if (si < src.length) throw corrupt(si); // bytes after the padding
      dlen = j;
      break;
    }
    const val = (q[0] << 18) | (q[1] << 12) | (q[2] << 6) | q[3];
    const three = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    out.push(...three.slice(0, dlen - 1));
    if (dlen < 4) break;
  }
  return Uint8Array.from(out);
}

// --- The JSON forms of blocks (J1.4): the go-sdk's MarshalJSON. -----------

function isEmptyMap(m: GoMap | null): boolean {
  return m === null || Object.keys(m).length === 0;
}

function base64(b: Uint8Array): string {
  return Buffer.from(b).toString("base64");
}

// annotationsJSON: the go-sdk's three keys, each omitted when empty ({} when none).
function annotationsJSON(a: Annotations): Ordered {
  const e: [string, unknown][] = [];
  if (a.audience !== null && a.audience.length > 0) e.push(["audience", a.audience]);
  if (a.lastModified !== "") e.push(["lastModified", a.lastModified]);
  if (a.priority !== 0) e.push(["priority", a.priority]);
  return new Ordered(e);
}

function iconJSON(i: Icon): Ordered {
  const e: [string, unknown][] = [["src", i.src]];
  if (i.mimeType !== "") e.push(["mimeType", i.mimeType]);
  if (i.sizes !== null && i.sizes.length > 0) e.push(["sizes", i.sizes]);
  if (i.theme !== "") e.push(["theme", i.theme]);
  return new Ordered(e);
}

// resourceJSON: an embedded resource; its uri always, blob unless nil.
function resourceJSON(r: Resource): Ordered {
  const e: [string, unknown][] = [["uri", r.uri]];
  if (r.mimeType !== "") e.push(["mimeType", r.mimeType]);
  if (r.text !== "") e.push(["text", r.text]);
  if (r.blob !== null) e.push(["blob", base64(r.blob)]);
  if (!isEmptyMap(r.meta)) e.push(["_meta", r.meta]);
  return new Ordered(e);
}

/**
 * wireForm is a block in the go-sdk's wireContent form: its fields in
 * that order, each omitted when empty (a size of 0 kept). A block holds the
 * fields of its type only, so this is the form of a resource_link, a
 * resource, and of any block inside a tool_result.
 */
function wireForm(b: Block): Ordered {
  const e: [string, unknown][] = [["type", b.type]];
  const put = (name: string, v: unknown, empty: boolean) => {
    if (!empty) e.push([name, v]);
  };
  put("text", b.text, b.text === "");
  put("mimeType", b.mimeType, b.mimeType === "");
  put("data", b.data && base64(b.data), b.data === null || b.data.length === 0);
  put("resource", b.resource && resourceJSON(b.resource), b.resource === null);
  put("uri", b.uri, b.uri === "");
  put("name", b.name, b.name === "");
  put("title", b.title, b.title === "");
  put("description", b.description, b.description === "");
  put("size", b.size, b.size === null);
  put("_meta", b.meta, isEmptyMap(b.meta));
  put("annotations", b.annotations && annotationsJSON(b.annotations), b.annotations === null);
  put("icons", b.icons?.map(iconJSON), b.icons === null || b.icons.length === 0);
  put("id", b.id, b.id === "");
  put("input", b.input, isEmptyMap(b.input));
  put("toolUseId", b.toolUseId, b.toolUseId === "");
  put("content", b.content?.map(wireForm), b.content === null || b.content.length === 0);
  put("structuredContent", b.structuredContent, b.structuredContent === undefined);
  put("isError", b.isError, !b.isError);
  return new Ordered(e);
}

/** form is a block's JSON form (J1.4). */
function form(b: Block): Ordered {
  switch (b.type) {
    case "tool_use": {
      // id, name and input always ({} when nil)
      const e: [string, unknown][] = [["type", b.type], ["id", b.id], ["name", b.name], ["input", b.input ?? {}]];
      if (!isEmptyMap(b.meta)) e.push(["_meta", b.meta]);
      return new Ordered(e);
    }
    case "tool_result": {
      // toolUseId and content always; its blocks in the wireContent form
      const e: [string, unknown][] = [["type", b.type], ["toolUseId", b.toolUseId], ["content", (b.content ?? []).map(wireForm)]];
      if (b.structuredContent !== undefined) e.push(["structuredContent", b.structuredContent]);
      if (b.isError) e.push(["isError", true]);
      if (!isEmptyMap(b.meta)) e.push(["_meta", b.meta]);
      return new Ordered(e);
    }
    default:
      return wireForm(b);
  }
}

/** blockJSON writes a block in its JSON form (P11.1, J1.4). */
export function blockJSON(b: Block): string {
  return marshal(form(b));
}
