//! P11.4–P11.6: a `tools/call` result read as the Go pool's go-sdk v1.6.1
//! reads it (its `CallToolResult.UnmarshalJSON` over segmentio's decoder,
//! member names matched exactly): the result's raw text is parsed into a
//! tree that keeps every member in order and every number as written,
//! then decoded member after member into the go-sdk's wire structs, as Go
//! decodes into a value it already holds: a later string or bool replaces
//! an earlier one and `null` leaves it; `null` empties a pointer, a map, a
//! slice or an `any`; a later object is decoded into the earlier one
//! (struct and map members merged); a later array reuses the elements
//! (and the capacity) of the earlier slice. Every member has its JSON
//! type whatever the block's type; the blocks are then checked as
//! `contentsFromWire` checks them. What cannot be read is an error, the
//! call's failure (P10).

use crate::mutant;
use serde_json::{Map, Number, Value};

/// A JSON value as written: members in order, a name given twice kept
/// twice, numbers as their literal.
#[derive(Debug)]
pub enum J {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

/// Deeper nesting than this is refused (the go-sdk v1.8.0's own bound).
const MAX_DEPTH: usize = 1000;

/// Parses JSON text (strings unescaped as Go does: a lone surrogate
/// escape becomes U+FFFD).
pub fn parse(text: &str) -> Result<J, String> {
    let mut p = Parser { s: text.as_bytes(), text, i: 0, depth: 0 };
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.syntax("after top-level value"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn syntax(&self, what: &str) -> String {
        format!("json: invalid character at offset {} {}", self.i, what)
    }

    fn ws(&mut self) {
        while matches!(self.s.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn literal(&mut self, word: &str, v: J) -> Result<J, String> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.syntax("in literal"))
        }
    }

    fn value(&mut self) -> Result<J, String> {
        self.ws();
        match self.s.get(self.i) {
            Some(b'{') => {
                self.nest()?;
                self.i += 1;
                let mut members = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        let k = self.string()?;
                        self.ws();
                        if self.s.get(self.i) != Some(&b':') {
                            return Err(self.syntax("after object key"));
                        }
                        self.i += 1;
                        let v = self.value()?;
                        members.push((k, v));
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                break;
                            }
                            _ => return Err(self.syntax("after object member")),
                        }
                    }
                }
                self.depth -= 1;
                Ok(J::Obj(members))
            }
            Some(b'[') => {
                self.nest()?;
                self.i += 1;
                let mut elems = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                } else {
                    loop {
                        elems.push(self.value()?);
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                break;
                            }
                            _ => return Err(self.syntax("after array element")),
                        }
                    }
                }
                self.depth -= 1;
                Ok(J::Arr(elems))
            }
            Some(b'"') => Ok(J::Str(self.string()?)),
            Some(b't') => self.literal("true", J::Bool(true)),
            Some(b'f') => self.literal("false", J::Bool(false)),
            Some(b'n') => self.literal("null", J::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.syntax("looking for beginning of value")),
        }
    }

    fn nest(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("json: exceeded maximum nesting depth of {}", MAX_DEPTH));
        }
        Ok(())
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<J, String> {
        let start = self.i;
        if self.s[self.i] == b'-' {
            self.i += 1;
        }
        match self.s.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.syntax("in numeric literal")),
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.syntax("after decimal point in numeric literal"));
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.syntax("in exponent of numeric literal"));
            }
        }
        Ok(J::Num(self.text[start..self.i].to_string()))
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let h = self.s.get(at..at + 4)?;
        let h = std::str::from_utf8(h).ok()?;
        u32::from_str_radix(h, 16).ok().filter(|_| h.bytes().all(|b| b.is_ascii_hexdigit()))
    }

    fn string(&mut self) -> Result<String, String> {
        if self.s.get(self.i) != Some(&b'"') {
            return Err(self.syntax("looking for beginning of string"));
        }
        self.i += 1;
        let mut out = String::new();
        loop {
            let start = self.i;
            while let Some(&b) = self.s.get(self.i) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.i += 1;
            }
            out.push_str(&self.text[start..self.i]);
            match self.s.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    let c = match self.s.get(self.i + 1) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let Some(r) = self.hex4(self.i + 2) else {
                                return Err(self.syntax("in \\u hexadecimal character escape"));
                            };
                            self.i += 6;
                            if (0xd800..0xdc00).contains(&r) && self.s.get(self.i) == Some(&b'\\') && self.s.get(self.i + 1) == Some(&b'u') {
                                if let Some(r2) = self.hex4(self.i + 2).filter(|r2| (0xdc00..0xe000).contains(r2)) {
                                    self.i += 6;
                                    let c = 0x10000 + ((r - 0xd800) << 10) + (r2 - 0xdc00);
                                    out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
                                    continue;
                                }
                            }
                            out.push(char::from_u32(r).unwrap_or('\u{fffd}'));
                            continue;
                        }
                        _ => return Err(self.syntax("in string escape code")),
                    };
                    out.push(c);
                    self.i += 2;
                }
                _ => return Err(self.syntax("in string literal")),
            }
        }
    }
}

/// A Go slice as the decoder fills it: a later array is decoded into the
/// elements it already holds, up to its capacity (10, then doubled);
/// `null` makes it nil.
#[derive(Clone, Debug)]
pub struct GoSlice<T> {
    backing: Vec<T>,
    len: usize,
    pub nil: bool,
}

impl<T> GoSlice<T> {
    fn nil() -> Self {
        GoSlice { backing: Vec::new(), len: 0, nil: true }
    }

    pub fn items(&self) -> &[T] {
        &self.backing[..self.len]
    }
}

/// A field never given is a nil slice.
impl<T> Default for GoSlice<T> {
    fn default() -> Self {
        Self::nil()
    }
}

/// A block as the go-sdk's wireContent holds it.
#[derive(Clone, Debug, Default)]
pub struct Wire {
    pub typ: String,
    pub text: String,
    pub mime_type: String,
    pub data: GoSlice<u8>,
    pub resource: Option<Box<Resource>>,
    pub uri: String,
    pub name: String,
    pub title: String,
    pub description: String,
    pub size: Option<i64>,
    pub meta: Option<Map<String, Value>>,
    pub annotations: Option<Box<Annotations>>,
    pub icons: GoSlice<Icon>,
    pub id: String,
    pub input: Option<Map<String, Value>>,
    pub tool_use_id: String,
    pub content: GoSlice<Option<Box<Wire>>>,
    pub structured: Option<Value>,
    pub is_error: bool,
}

/// An embedded resource's contents (ResourceContents).
#[derive(Clone, Debug, Default)]
pub struct Resource {
    pub uri: String,
    pub mime_type: String,
    pub text: String,
    pub blob: GoSlice<u8>,
    pub meta: Option<Map<String, Value>>,
}

#[derive(Clone, Debug, Default)]
pub struct Annotations {
    pub audience: GoSlice<String>,
    pub last_modified: String,
    pub priority: f64,
}

#[derive(Clone, Debug, Default)]
pub struct Icon {
    pub src: String,
    pub mime_type: String,
    pub sizes: GoSlice<String>,
    pub theme: String,
}

/// A block read (one of the seven types), and a tool_result's blocks.
#[derive(Clone, Debug)]
pub struct Block {
    pub wire: Wire,
    pub nested: Vec<Block>,
}

/// A call's result as the go-sdk reads it.
#[derive(Clone, Debug, Default)]
pub struct CallResult {
    pub content: Vec<Block>,
    pub structured: Option<Value>,
    pub is_error: bool,
    pub meta: Option<Map<String, Value>>,
}

type R = Result<(), String>;

const TYPES: [&str; 7] = ["text", "image", "audio", "resource_link", "resource", "tool_use", "tool_result"];

/// P11.6: reads a result's raw text; Err is the decoding error.
pub fn read(text: &str) -> Result<CallResult, String> {
    let v = parse(text)?;
    let members = match &v {
        J::Null if !mutant::on("RS-P11.5-null-result-fails") => return Ok(CallResult::default()),
        J::Obj(ms) => ms,
        other => return Err(format!("json: cannot unmarshal {} into Go value of type mcp.CallToolResult", kind(other))),
    };
    let mut content: GoSlice<Option<Box<Wire>>> = GoSlice::nil();
    let mut res = CallResult::default();
    for (k, v) in members {
        match key(k, &["content", "structuredContent", "isError", "_meta"]) {
            "content" => {
                if mutant::on("RS-P11.5-null-content-fails") && matches!(v, J::Null) {
                    return Err(mismatch_err(v, "CallToolResult.content", "[]*mcp.wireContent"));
                }
                slice(&mut content, v, "CallToolResult.content", "[]*mcp.wireContent", wire_elem)?
            }
            "structuredContent" => any_into(&mut res.structured, v)?,
            "isError" => boolean(&mut res.is_error, v, "CallToolResult.isError")?,
            "_meta" => map(&mut res.meta, v, "CallToolResult._meta")?,
            _ => unknown(v, "CallToolResult")?,
        }
    }
    res.content = blocks(content.items(), false)?;
    if mutant::on("RS-P11.5-structured-objects-only") && !matches!(res.structured, Some(Value::Object(_))) {
        res.structured = None;
    }
    Ok(res)
}

/// contentsFromWire: every block one of the known types (a tool_result's
/// one of the first five); a nil block fails.
fn blocks(wires: &[Option<Box<Wire>>], nested: bool) -> Result<Vec<Block>, String> {
    let mut out = Vec::with_capacity(wires.len());
    for w in wires {
        let Some(w) = w else { return Err("nil content".to_string()) };
        let allowed = if nested && !mutant::on("RS-P11.6-nested-any-type") { &TYPES[..5] } else { &TYPES[..] };
        if !allowed.contains(&w.typ.as_str()) {
            if nested {
                return Err(format!("invalid content type {:?}", w.typ));
            }
            if !mutant::on("RS-P11.6-unknown-type-json") {
                return Err(format!("unrecognized content type {:?}", w.typ));
            }
        }
        let mut inner = Vec::new();
        if w.typ == "tool_result" && !w.content.nil {
            inner = blocks(w.content.items(), true).map_err(|e| format!("tool_result nested content: {}", e))?;
        }
        out.push(Block { wire: (**w).clone(), nested: inner });
    }
    Ok(out)
}

/// A member name as the decoder matches it: exactly.
fn key<'a>(k: &'a str, known: &[&'static str]) -> &'a str {
    if mutant::on("RS-P11.6-case-folded") {
        if let Some(n) = known.iter().find(|n| n.eq_ignore_ascii_case(k)) {
            return n;
        }
    }
    k
}

/// An unknown member is ignored.
fn unknown(v: &J, at: &str) -> R {
    if mutant::on("RS-P11.4-unknown-member-fails") && at == "wireContent" {
        return Err(format!("json: unknown field in {}: {}", at, kind(v)));
    }
    Ok(())
}

fn kind(v: &J) -> &'static str {
    match v {
        J::Null => "null",
        J::Bool(_) => "bool",
        J::Num(_) => "number",
        J::Str(_) => "string",
        J::Arr(_) => "array",
        J::Obj(_) => "object",
    }
}

fn mismatch_err(v: &J, at: &str, ty: &str) -> String {
    format!("json: cannot unmarshal {} into Go struct field {} of type {}", kind(v), at, ty)
}

/// A member of another JSON type fails the result.
fn mismatch(v: &J, at: &str, ty: &str) -> R {
    if mutant::on("RS-P11.6-type-unchecked") {
        return Ok(());
    }
    Err(mismatch_err(v, at, ty))
}

/// `null` leaves a scalar as it is.
fn null_scalar(v: &J, at: &str, ty: &str) -> R {
    if mutant::on("RS-P11.4-null-fails") {
        return Err(mismatch_err(v, at, ty));
    }
    Ok(())
}

fn string(dst: &mut String, v: &J, at: &str) -> R {
    match v {
        J::Null => null_scalar(v, at, "string"),
        J::Str(s) => {
            dst.clone_from(s);
            Ok(())
        }
        _ => mismatch(v, at, "string"),
    }
}

fn boolean(dst: &mut bool, v: &J, at: &str) -> R {
    match v {
        J::Null => null_scalar(v, at, "bool"),
        J::Bool(b) => {
            *dst = *b;
            Ok(())
        }
        _ => mismatch(v, at, "bool"),
    }
}

fn float(dst: &mut f64, v: &J, at: &str) -> R {
    match v {
        J::Null => null_scalar(v, at, "float64"),
        J::Num(lit) => match lit.parse::<f64>() {
            Ok(f) if f.is_finite() => {
                *dst = f;
                Ok(())
            }
            _ => mismatch(v, at, "float64"),
        },
        _ => mismatch(v, at, "float64"),
    }
}

/// An integer literal: no fraction, no exponent, within int64.
fn int_literal(lit: &str) -> Option<i64> {
    if lit.contains(['.', 'e', 'E']) {
        if mutant::on("RS-P11.6-size-integral-float") {
            return lit.parse::<f64>().ok().filter(|f| f.fract() == 0.0 && f.abs() < 9.2e18).map(|f| f as i64);
        }
        return None;
    }
    lit.parse::<i64>().ok()
}

/// `size`, a *int64: `null` makes it absent.
fn size(dst: &mut Option<i64>, v: &J, at: &str) -> R {
    match v {
        J::Null => {
            null_scalar(v, at, "int64")?;
            *dst = None;
            Ok(())
        }
        J::Num(lit) => match int_literal(lit) {
            Some(n) => {
                *dst = Some(n);
                Ok(())
            }
            None => mismatch(v, at, "int64"),
        },
        _ => mismatch(v, at, "int64"),
    }
}

/// A []byte: a base64 string (standard, padded), or (segmentio's Go 1.7
/// form) an array of bytes.
fn bytes(dst: &mut GoSlice<u8>, v: &J, at: &str) -> R {
    match v {
        J::Str(s) => {
            if mutant::on("RS-P11.6-base64-unchecked") {
                *dst = GoSlice { backing: s.as_bytes().to_vec(), len: s.len(), nil: false };
                return Ok(());
            }
            let decoded = base64_decode(s.as_bytes())?;
            let len = decoded.len();
            let mut backing = decoded;
            backing.resize((s.len() / 4 * 3).max(len), 0);
            *dst = GoSlice { backing, len, nil: false };
            Ok(())
        }
        J::Arr(_) => slice(dst, v, at, "[]uint8", |b, e, at| match e {
            J::Null => Ok(()),
            J::Num(lit) => match lit.parse::<u8>() {
                Ok(n) if !lit.starts_with(['-', '+']) => {
                    *b = n;
                    Ok(())
                }
                _ => mismatch(e, at, "uint8"),
            },
            _ => mismatch(e, at, "uint8"),
        }),
        J::Null => {
            null_scalar(v, at, "[]uint8")?;
            *dst = GoSlice::nil();
            Ok(())
        }
        _ => mismatch(v, at, "[]uint8"),
    }
}

/// A slice: `null` makes it nil; an array is decoded into the elements
/// the slice holds, growing its capacity as Go's decoder does.
fn slice<T: Default>(dst: &mut GoSlice<T>, v: &J, at: &str, ty: &str, mut elem: impl FnMut(&mut T, &J, &str) -> R) -> R {
    match v {
        J::Null => {
            null_scalar(v, at, ty)?;
            *dst = GoSlice::nil();
            Ok(())
        }
        J::Arr(es) => {
            dst.len = 0;
            dst.nil = false;
            for e in es {
                if dst.len == dst.backing.len() {
                    let cap = if dst.backing.is_empty() { 10 } else { dst.backing.len() * 2 };
                    dst.backing.resize_with(cap, T::default);
                }
                elem(&mut dst.backing[dst.len], e, at)?;
                dst.len += 1;
            }
            Ok(())
        }
        _ => mismatch(v, at, ty),
    }
}

/// A pointer to a struct: `null` makes it nil; an object is decoded into
/// the struct it points to (a new one when nil).
fn pointer<T: Default>(dst: &mut Option<Box<T>>, v: &J, at: &str, ty: &str, fill: fn(&mut T, &[(String, J)]) -> R) -> R {
    match v {
        J::Null => {
            null_scalar(v, at, ty)?;
            *dst = None;
            Ok(())
        }
        J::Obj(ms) => fill(dst.get_or_insert_with(Default::default), ms),
        _ => mismatch(v, at, ty),
    }
}

/// A struct element of a slice: `null` leaves it, an object is decoded
/// into it.
fn struct_elem<T>(dst: &mut T, v: &J, at: &str, ty: &str, fill: fn(&mut T, &[(String, J)]) -> R) -> R {
    match v {
        J::Null => null_scalar(v, at, ty),
        J::Obj(ms) => fill(dst, ms),
        _ => mismatch(v, at, ty),
    }
}

fn wire_elem(dst: &mut Option<Box<Wire>>, v: &J, at: &str) -> R {
    match v {
        // A null block is a nil pointer: contentsFromWire fails on it.
        J::Null => {
            *dst = None;
            Ok(())
        }
        _ => pointer(dst, v, at, "mcp.wireContent", wire_into),
    }
}

fn string_elem(dst: &mut String, v: &J, at: &str) -> R {
    string(dst, v, at)
}

/// A map[string]any: `null` makes it nil; an object's members are added
/// to the map it holds, each value decoded anew.
fn map(dst: &mut Option<Map<String, Value>>, v: &J, at: &str) -> R {
    match v {
        J::Null => {
            null_scalar(v, at, "map[string]interface {}")?;
            *dst = None;
            Ok(())
        }
        J::Obj(ms) => {
            let m = dst.get_or_insert_with(Map::new);
            for (k, e) in ms {
                m.insert(k.clone(), any(e, at)?);
            }
            Ok(())
        }
        _ => mismatch(v, at, "map[string]interface {}"),
    }
}

/// An `any`: `null` makes it nil; anything else is decoded anew.
fn any_into(dst: &mut Option<Value>, v: &J) -> R {
    match v {
        J::Null => {
            null_scalar(v, "structuredContent", "interface {}")?;
            *dst = None;
            Ok(())
        }
        _ => {
            *dst = Some(any(v, "structuredContent")?);
            Ok(())
        }
    }
}

/// A JSON value as Go decodes it into an `any`: numbers as float64 (one
/// out of its range fails), a name given twice the later.
fn any(v: &J, at: &str) -> Result<Value, String> {
    Ok(match v {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Num(lit) => match lit.parse::<Number>() {
            Ok(n) if n.as_f64().is_some_and(f64::is_finite) => Value::Number(n),
            _ => return Err(format!("json: cannot unmarshal number {} into Go value of type float64 ({})", lit, at)),
        },
        J::Str(s) => Value::String(s.clone()),
        J::Arr(es) => Value::Array(es.iter().map(|e| any(e, at)).collect::<Result<_, _>>()?),
        J::Obj(ms) => {
            let mut m = Map::new();
            for (k, e) in ms {
                m.insert(k.clone(), any(e, at)?);
            }
            Value::Object(m)
        }
    })
}

const WIRE_MEMBERS: [&str; 19] = ["type", "text", "mimeType", "data", "resource", "uri", "name", "title", "description",
    "size", "_meta", "annotations", "icons", "id", "input", "toolUseId", "content", "structuredContent", "isError"];

fn wire_into(w: &mut Wire, ms: &[(String, J)]) -> R {
    for (k, v) in ms {
        match key(k, &WIRE_MEMBERS) {
            "type" => string(&mut w.typ, v, "wireContent.type")?,
            "text" => string(&mut w.text, v, "wireContent.text")?,
            "mimeType" => string(&mut w.mime_type, v, "wireContent.mimeType")?,
            "data" => bytes(&mut w.data, v, "wireContent.data")?,
            "resource" => pointer(&mut w.resource, v, "wireContent.resource", "mcp.ResourceContents", resource_into)?,
            "uri" => string(&mut w.uri, v, "wireContent.uri")?,
            "name" => string(&mut w.name, v, "wireContent.name")?,
            "title" => string(&mut w.title, v, "wireContent.title")?,
            "description" => string(&mut w.description, v, "wireContent.description")?,
            "size" => size(&mut w.size, v, "wireContent.size")?,
            "_meta" => map(&mut w.meta, v, "wireContent._meta")?,
            "annotations" => pointer(&mut w.annotations, v, "wireContent.annotations", "mcp.Annotations", annotations_into)?,
            "icons" => slice(&mut w.icons, v, "wireContent.icons", "[]mcp.Icon", |i, e, at| struct_elem(i, e, at, "mcp.Icon", icon_into))?,
            "id" => string(&mut w.id, v, "wireContent.id")?,
            "input" => map(&mut w.input, v, "wireContent.input")?,
            "toolUseId" => string(&mut w.tool_use_id, v, "wireContent.toolUseId")?,
            "content" => slice(&mut w.content, v, "wireContent.content", "[]*mcp.wireContent", wire_elem)?,
            "structuredContent" => any_into(&mut w.structured, v)?,
            "isError" => boolean(&mut w.is_error, v, "wireContent.isError")?,
            _ => unknown(v, "wireContent")?,
        }
    }
    Ok(())
}

fn resource_into(r: &mut Resource, ms: &[(String, J)]) -> R {
    for (k, v) in ms {
        match key(k, &["uri", "mimeType", "text", "blob", "_meta"]) {
            "uri" => string(&mut r.uri, v, "ResourceContents.uri")?,
            "mimeType" => string(&mut r.mime_type, v, "ResourceContents.mimeType")?,
            "text" => string(&mut r.text, v, "ResourceContents.text")?,
            "blob" => bytes(&mut r.blob, v, "ResourceContents.blob")?,
            "_meta" => map(&mut r.meta, v, "ResourceContents._meta")?,
            _ => unknown(v, "ResourceContents")?,
        }
    }
    Ok(())
}

fn annotations_into(a: &mut Annotations, ms: &[(String, J)]) -> R {
    for (k, v) in ms {
        match key(k, &["audience", "lastModified", "priority"]) {
            "audience" => slice(&mut a.audience, v, "Annotations.audience", "[]mcp.Role", string_elem)?,
            "lastModified" => string(&mut a.last_modified, v, "Annotations.lastModified")?,
            "priority" => float(&mut a.priority, v, "Annotations.priority")?,
            _ => unknown(v, "Annotations")?,
        }
    }
    Ok(())
}

fn icon_into(i: &mut Icon, ms: &[(String, J)]) -> R {
    for (k, v) in ms {
        match key(k, &["src", "mimeType", "sizes", "theme"]) {
            "src" => string(&mut i.src, v, "Icon.src")?,
            "mimeType" => string(&mut i.mime_type, v, "Icon.mimeType")?,
            "sizes" => slice(&mut i.sizes, v, "Icon.sizes", "[]string", string_elem)?,
            "theme" => string(&mut i.theme, v, "Icon.theme")?,
            _ => unknown(v, "Icon")?,
        }
    }
    Ok(())
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn b64_value(c: u8) -> Option<u32> {
    B64.iter().position(|&x| x == c).map(|p| p as u32)
}

/// Go's base64.StdEncoding.Decode: standard alphabet, padded, `\r` and
/// `\n` skipped; the error names the offending byte.
pub fn base64_decode(src: &[u8]) -> Result<Vec<u8>, String> {
    let corrupt = |at: usize| format!("illegal base64 data at input byte {}", at);
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0;
    while si < src.len() {
        let mut buf = [0u32; 4];
        let mut dlen = 4;
        let mut j = 0;
        let mut trailing = None;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(out);
                }
                return Err(corrupt(si - j));
            }
            let c = src[si];
            si += 1;
            if let Some(v) = b64_value(c) {
                buf[j] = v;
                j += 1;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                continue;
            }
            if c != b'=' {
                return Err(corrupt(si - 1));
            }
            match j {
                0 | 1 => return Err(corrupt(si - 1)),
                2 => {
                    while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(corrupt(src.len()));
                    }
                    if src[si] != b'=' {
                        return Err(corrupt(si - 1));
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                si += 1;
            }
            if si < src.len() {
                trailing = Some(si);
            }
            dlen = j;
            break;
        }
        let val = buf[0] << 18 | buf[1] << 12 | buf[2] << 6 | buf[3];
        let bytes = [(val >> 16) as u8, (val >> 8) as u8, val as u8];
        out.extend_from_slice(&bytes[..dlen - 1]);
        if let Some(at) = trailing {
            return Err(corrupt(at));
        }
        if dlen < 4 {
            break;
        }
    }
    Ok(out)
}

/// Standard base64 with padding, as Go's encoding/json writes a []byte.
pub fn base64_encode(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len().div_ceil(3) * 4);
    for chunk in b.chunks(3) {
        let n = chunk.len();
        let v = (chunk[0] as u32) << 16 | (*chunk.get(1).unwrap_or(&0) as u32) << 8 | *chunk.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= n {
                out.push(B64[((v >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        read(s).expect_err(s)
    }

    #[test]
    fn base64_as_go() {
        assert_eq!(base64_decode(b"aGk=").unwrap(), b"hi");
        assert_eq!(base64_decode(b"aG\nk=\r\n").unwrap(), b"hi");
        assert_eq!(base64_decode(b"aGl=").unwrap(), b"hi");
        assert_eq!(base64_decode(b"aG==").unwrap(), b"h");
        assert_eq!(base64_decode(b"").unwrap(), b"");
        assert_eq!(base64_decode(b"\n").unwrap(), b"");
        assert_eq!(base64_decode(b"aGk").unwrap_err(), "illegal base64 data at input byte 0");
        assert_eq!(base64_decode(b"%%%").unwrap_err(), "illegal base64 data at input byte 0");
        assert_eq!(base64_decode(b"aG-_").unwrap_err(), "illegal base64 data at input byte 2");
        assert_eq!(base64_decode(b"aGk==").unwrap_err(), "illegal base64 data at input byte 4");
        assert_eq!(base64_decode(b"aGk=aGk=").unwrap_err(), "illegal base64 data at input byte 4");
        assert_eq!(base64_decode(b"a===").unwrap_err(), "illegal base64 data at input byte 1");
        assert_eq!(base64_decode(b"=").unwrap_err(), "illegal base64 data at input byte 0");
        assert_eq!(base64_encode(b"hi"), "aGk=");
        assert_eq!(base64_encode(b"h"), "aA==");
        assert_eq!(base64_encode(b"abc"), "YWJj");
    }

    #[test]
    fn read_as_the_go_sdk() {
        assert!(read("null").unwrap().content.is_empty());
        assert!(read(r#"{"content":null,"isError":null,"structuredContent":null}"#).unwrap().structured.is_none());
        assert!(err(r#"{"content":[{"type":"video"}]}"#).starts_with("unrecognized content type"));
        assert_eq!(err(r#"{"content":[null]}"#), "nil content");
        assert_eq!(err(r#"{"content":[{"type":null}]}"#), "unrecognized content type \"\"");
        assert!(err(r#"{"content":{"type":"text"}}"#).starts_with("json: cannot unmarshal object"));
        assert!(err(r#"{"content":[{"type":"text","text":5}]}"#).starts_with("json: cannot unmarshal number"));
        assert!(err(r#"{"content":[{"type":"text","text":"a"}],"isError":"true"}"#).contains("bool"));
        assert!(err(r#"{"content":[{"type":"resource_link","size":1e3}]}"#).contains("int64"));
        assert!(err(r#"{"content":[{"type":"resource_link","size":-0.0}]}"#).contains("int64"));
        assert!(err(r#"{"content":[{"type":"resource_link","size":9223372036854775808}]}"#).contains("int64"));
        assert_eq!(read(r#"{"content":[{"type":"resource_link","size":-0}]}"#).unwrap().content[0].wire.size, Some(0));
        assert!(err(r#"{"content":[{"type":"tool_result","content":[{"type":"tool_use"}]}]}"#).starts_with("tool_result nested content"));
        assert!(err(r#"{"content":[{"type":"text","annotations":{"priority":1e400}}]}"#).contains("float64"));
        assert!(err(r#"{"content":[],"structuredContent":{"x":1e400}}"#).contains("float64"));
        assert!(err(r#"{"content":[{"type":"image","data":[256]}]}"#).contains("uint8"));
        assert!(err("[]").contains("CallToolResult"));
        // Unknown members, other cases, and a text block's other members.
        let r = read(r#"{"content":[{"type":"text","text":"a","Text":5,"TYPE":[],"content":[{"type":"video"}]}],"Content":1}"#).unwrap();
        assert_eq!(r.content[0].wire.text, "a");
        // Given twice: a later string replaces, a null leaves, objects merge.
        let r = read(r#"{"content":[{"type":"video","type":"resource","resource":{"uri":"a"},"resource":{"text":"t"},"_meta":{"a":1},"_meta":{"b":2}}],"isError":true,"isError":null}"#).unwrap();
        let w = &r.content[0].wire;
        assert!(r.is_error);
        let res = w.resource.as_ref().unwrap();
        assert_eq!((res.uri.as_str(), res.text.as_str()), ("a", "t"));
        assert_eq!(w.meta.as_ref().unwrap().len(), 2);
        // A later array reuses the earlier elements.
        let r = read(r#"{"content":[{"type":"text","text":"a"}],"content":[{"type":"image"}]}"#).unwrap();
        assert_eq!((r.content[0].wire.typ.as_str(), r.content[0].wire.text.as_str()), ("image", "a"));
        let r = read(r#"{"content":[{"type":"image","data":"aGk=","data":[null]}]}"#).unwrap();
        assert_eq!(r.content[0].wire.data.items(), b"h");
        // A lone surrogate is U+FFFD; a pair is one character.
        let r = read(r#"{"content":[{"type":"text","text":"\ud800\ud83d\ude00"}]}"#).unwrap();
        assert_eq!(r.content[0].wire.text, "\u{fffd}\u{1f600}");
    }
}
