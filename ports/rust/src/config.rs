//! A configured server (C1–C3): its fields, its transport, its validation,
//! and the stored JSON as Go's encoding/json reads (C8.3, C8.4) and
//! writes it (C8.2).

use crate::gojson;
use crate::mutant;
use crate::text;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

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

fn list_of(v: &Value) -> Result<Option<Vec<String>>, ()> {
    match v {
        Value::Null => Ok(None),
        Value::Array(a) => a
            .iter()
            .map(|e| match e {
                Value::Null => Ok(String::new()),
                Value::String(s) => Ok(s.clone()),
                _ => Err(()),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        _ => Err(()),
    }
}

fn map_of(v: &Value, into: &mut BTreeMap<String, String>) -> Result<(), ()> {
    match v {
        Value::Null => Ok(()),
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
    let mut s = Server::default();
    let obj = match v {
        Value::Null => return Ok(Server { enabled: true, ..Server::default() }),
        Value::Object(o) => o,
        _ => return Err(()),
    };
    for (k, f) in obj {
        if fold_eq(k, "command") {
            string_of(f, &mut s.command)?;
        } else if fold_eq(k, "args") {
            if let Some(l) = list_of(f)? {
                s.args = l;
            }
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
            if let Some(l) = list_of(f)? {
                s.disabled_tools = l;
            }
        }
    }
    let has_key = if mutant::on("RS-C1.2-enabled-folded") {
        obj.keys().any(|k| fold_eq(k, "enabled"))
    } else {
        obj.contains_key("enabled")
    };
    if !has_key && !mutant::on("RS-C1.1-disabled-by-default") {
        s.enabled = true;
    }
    if mutant::on("RS-C1.2-null-enabled") && obj.get("enabled") == Some(&Value::Null) {
        s.enabled = true;
    }
    Ok(s)
}

/// C8.4: the stored bytes as a configuration; what cannot be read reads as
/// the servers decoded before the first failure.
pub fn decode(bytes: &[u8]) -> Config {
    let mut cfg = Config::new();
    let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(bytes) else {
        return cfg;
    };
    for (name, v) in m {
        match decode_server(&v) {
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
