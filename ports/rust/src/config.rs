//! A configured server (C1–C3): its fields, its transport, its validation,
//! and the stored JSON as Go's encoding/json reads (C8.3, C8.4) and
//! writes it (C8.2).

use crate::gojson;
use crate::mutant;
use crate::text;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Server {
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub url: String,
    pub headers: BTreeMap<String, String>,
    pub enabled: bool,
    pub disabled_tools: Vec<String>,
}

/// The configuration: name → server, names in sorted order (C8.6).
pub type Config = BTreeMap<String, Server>;

impl Server {
    /// C2: "stdio", "http" or "".
    pub fn transport(&self) -> &'static str {
        let cmd = !text::trim(&self.command).is_empty();
        let url = !text::trim(&self.url).is_empty();
        if mutant::on("RS-C2.1-url-wins") && url {
            return "http";
        }
        if cmd {
            "stdio"
        } else if url && !mutant::on("RS-C2.2-url-ignored") {
            "http"
        } else {
            ""
        }
    }

    /// C3: the validation a save does.
    pub fn validate(&self) -> Result<(), &'static str> {
        let cmd = !text::trim(&self.command).is_empty();
        let url = !text::trim(&self.url).is_empty();
        if cmd && url && !mutant::on("RS-C3.1-both-accepted") {
            return Err("un serveur MCP ne peut avoir à la fois 'command' (stdio) et 'url' (http)");
        }
        if !cmd && !url && !mutant::on("RS-C3.2-neither-accepted") {
            return Err("un serveur MCP doit avoir soit 'command' (stdio) soit 'url' (http)");
        }
        Ok(())
    }
}

/// Go's case-insensitive field match (letters folded; the Kelvin sign and
/// long s fold as Go folds them).
pub fn fold_eq(a: &str, b: &str) -> bool {
    if mutant::on("RS-C8.3-case-sensitive") {
        return a == b;
    }
    let f = |s: &str| -> String {
        s.chars()
            .map(|c| match c {
                '\u{17f}' => 's',
                c => c.to_lowercase().next().unwrap_or(c),
            })
            .collect()
    };
    f(a) == f(b)
}

fn string_of(v: &Value, into: &mut String) -> Result<(), ()> {
    match v {
        Value::Null => Ok(()),
        Value::String(s) => {
            *into = s.clone();
            Ok(())
        }
        _ => Err(()),
    }
}

/// A list field, as Go decodes it: `null` sets it to nil (empty), C8.3.
fn list_of(v: &Value) -> Result<Vec<String>, ()> {
    match v {
        Value::Null => Ok(Vec::new()),
        Value::Array(a) => a
            .iter()
            .map(|e| match e {
                Value::Null => Ok(String::new()),
                Value::String(s) => Ok(s.clone()),
                _ => Err(()),
            })
            .collect::<Result<Vec<_>, _>>(),
        _ => Err(()),
    }
}

/// A map field, as Go decodes it: a later object is merged into the
/// earlier one, `null` sets it to nil (empty), C8.3.
fn map_of(v: &Value, into: &mut BTreeMap<String, String>) -> Result<(), ()> {
    match v {
        Value::Null => {
            into.clear();
            Ok(())
        }
        Value::Object(m) => {
            for (k, e) in m {
                let mut s = String::new();
                string_of(e, &mut s)?;
                into.insert(k.clone(), s);
            }
            Ok(())
        }
        _ => Err(()),
    }
}

/// One stored server as Go decodes it (C1, C8.3); Err when a field has the
/// wrong type.
pub fn decode_server(v: &Value) -> Result<Server, ()> {
    match v {
        Value::Null => Ok(Server { enabled: true, ..Server::default() }),
        Value::Object(o) => decode_fields(o.iter().map(|(k, f)| (k.as_str(), f)).collect()),
        _ => Err(()),
    }
}

/// A stored server's fields, in order, a field given twice kept twice:
/// Go reads each in turn (a later scalar or list replaces, a later map is
/// merged into the earlier one).
fn decode_fields(fields: Vec<(&str, &Value)>) -> Result<Server, ()> {
    let mut s = Server::default();
    for &(k, f) in &fields {
        if fold_eq(k, "command") {
            string_of(f, &mut s.command)?;
        } else if fold_eq(k, "args") {
            s.args = list_of(f)?;
        } else if fold_eq(k, "env") {
            map_of(f, &mut s.env)?;
        } else if fold_eq(k, "url") {
            string_of(f, &mut s.url)?;
        } else if fold_eq(k, "headers") {
            map_of(f, &mut s.headers)?;
        } else if fold_eq(k, "enabled") {
            match f {
                Value::Null => {}
                Value::Bool(b) => s.enabled = *b,
                _ => return Err(()),
            }
        } else if fold_eq(k, "disabledTools") {
            s.disabled_tools = list_of(f)?;
        }
    }
    let has_key = if mutant::on("RS-C1.2-enabled-folded") {
        fields.iter().any(|(k, _)| fold_eq(k, "enabled"))
    } else {
        fields.iter().any(|(k, _)| *k == "enabled")
    };
    if !has_key && !mutant::on("RS-C1.1-disabled-by-default") {
        s.enabled = true;
    }
    if mutant::on("RS-C1.2-null-enabled") && fields.iter().any(|(k, f)| *k == "enabled" && f.is_null()) {
        s.enabled = true;
    }
    Ok(s)
}

/// A JSON object's members in order, a name given twice kept twice.
pub struct Members<V>(pub Vec<(String, V)>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Members<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for Visit<V> {
            type Value = Members<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(e) = m.next_entry::<String, V>()? {
                    out.push(e);
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(Visit(PhantomData))
    }
}

/// One stored server's raw text, as decode_server reads it, its fields
/// given twice included.
fn decode_raw(raw: &RawValue) -> Result<Server, ()> {
    if raw.get().trim_start().starts_with('{') {
        let Members(fields) = serde_json::from_str::<Members<Value>>(raw.get()).map_err(|_| ())?;
        return decode_fields(fields.iter().map(|(k, f)| (k.as_str(), f)).collect());
    }
    decode_server(&serde_json::from_str::<Value>(raw.get()).map_err(|_| ())?)
}

/// C8.4: the stored bytes as a configuration; what cannot be read reads as
/// the servers decoded before the first failure. A name given twice: the
/// later server replaces the earlier one whole (C8.3).
pub fn decode(bytes: &[u8]) -> Config {
    let mut cfg = Config::new();
    let bytes = match bytes {
        [0xef, 0xbb, 0xbf, rest @ ..] if mutant::on("RS-C8.4-bom-skipped") => rest,
        _ if mutant::on("RS-C8.4-trailing-ignored") => &bytes[..bytes.iter().rposition(|&b| b == b'}').map_or(0, |i| i + 1)],
        _ => bytes,
    };
    let Ok(Members(servers)) = serde_json::from_slice::<Members<Box<RawValue>>>(bytes) else {
        return cfg;
    };
    for (name, raw) in servers {
        match decode_raw(&raw) {
            Ok(s) => {
                cfg.insert(name, s);
            }
            Err(()) if mutant::on("RS-C8.4-skip-bad-entry") => continue,
            Err(()) => break,
        }
    }
    cfg
}

/// C8.2: the configuration as stored, fields in order, empty ones omitted
/// but `enabled`, names sorted.
pub fn encode(cfg: &Config) -> Vec<u8> {
    let mut top = Map::new();
    for (name, s) in cfg {
        top.insert(name.clone(), server_json(s));
    }
    let mut out = String::from("{");
    for (i, (name, v)) in top.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        gojson::write_string(&mut out, name);
        out.push(':');
        out.push_str(&ordered_json(v));
    }
    out.push('}');
    out.into_bytes()
}

/// A server's fields in the C8.2 order (a Map keeps insertion order).
fn server_json(s: &Server) -> Value {
    let mut m = Map::new();
    let omit = !mutant::on("RS-C8.2-empty-written");
    if !(omit && s.command.is_empty()) {
        m.insert("command".into(), s.command.clone().into());
    }
    if !(omit && s.args.is_empty()) {
        m.insert("args".into(), s.args.clone().into());
    }
    if !(omit && s.env.is_empty()) {
        m.insert("env".into(), string_map(&s.env));
    }
    if !(omit && s.url.is_empty()) {
        m.insert("url".into(), s.url.clone().into());
    }
    if !(omit && s.headers.is_empty()) {
        m.insert("headers".into(), string_map(&s.headers));
    }
    m.insert("enabled".into(), s.enabled.into());
    if !s.disabled_tools.is_empty() {
        m.insert("disabledTools".into(), s.disabled_tools.clone().into());
    }
    Value::Object(m)
}

pub fn string_map(m: &BTreeMap<String, String>) -> Value {
    Value::Object(m.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect())
}

/// An object's fields in their own order, nested maps sorted (Go).
fn ordered_json(v: &Value) -> String {
    let mut out = String::from("{");
    if let Value::Object(m) = v {
        for (i, (k, f)) in m.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            gojson::write_string(&mut out, k);
            out.push(':');
            gojson::write_value(&mut out, f, None, 0);
        }
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_store() {
        let c = decode(br#"{"a":{"url":"u"},"b":5,"c":{}}"#);
        assert_eq!(c.keys().collect::<Vec<_>>(), vec!["a"]);
        let c = decode(br#"{"a":null,"b":{"URL":"x","Enabled":false},"c":{"enabled":null}}"#);
        assert!(c["a"].enabled);
        assert!(c["b"].enabled);
        assert_eq!(c["b"].url, "x");
        assert!(!c["c"].enabled);
        assert!(decode(b"{} x").is_empty());
    }

    #[test]
    fn written_in_order() {
        let mut c = Config::new();
        c.insert("z".into(), Server { url: "u".into(), enabled: true, disabled_tools: vec!["t".into()], ..Default::default() });
        c.insert("a".into(), Server::default());
        assert_eq!(String::from_utf8(encode(&c)).unwrap(), r#"{"a":{"enabled":false},"z":{"url":"u","enabled":true,"disabledTools":["t"]}}"#);
    }
}
