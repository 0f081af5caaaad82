//! JSON text as Go's encoding/json writes it (rules.md, "JSON forms"):
//! map keys sorted by UTF-8 bytes, HTML characters and U+2028/U+2029
//! escaped, numbers as float64 in Go's shortest form.

use crate::mutant;
use serde_json::{Map, Number, Value};

/// Compact JSON of `v` (J1.1–J1.3).
pub fn compact(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v, None, 0);
    out
}

/// JSON of `v` indented with two spaces per level (J1.5).
pub fn indented(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v, Some("  "), 0);
    out
}

/// Writes `v`; `indent` set means one line per element.
pub fn write_value(out: &mut String, v: &Value, indent: Option<&str>, depth: usize) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number(n)),
        Value::String(s) => write_string(out, s),
        Value::Array(a) => write_array(out, a, indent, depth),
        Value::Object(m) => write_object(out, m, indent, depth),
    }
}

fn newline(out: &mut String, indent: Option<&str>, depth: usize) {
    if let Some(unit) = indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(unit);
        }
    }
}

fn write_array(out: &mut String, a: &[Value], indent: Option<&str>, depth: usize) {
    if a.is_empty() {
        out.push_str("[]");
        return;
    }
    out.push('[');
    for (i, e) in a.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        newline(out, indent, depth + 1);
        write_value(out, e, indent, depth + 1);
    }
    newline(out, indent, depth);
    out.push(']');
}

fn write_object(out: &mut String, m: &Map<String, Value>, indent: Option<&str>, depth: usize) {
    if m.is_empty() {
        out.push_str("{}");
        return;
    }
    let mut keys: Vec<&String> = m.keys().collect();
    if !mutant::on("RS-J1.1-keys-unsorted") {
        keys.sort();
    }
    out.push('{');
    for (i, k) in keys.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        newline(out, indent, depth + 1);
        write_string(out, k);
        out.push(':');
        if indent.is_some() {
            out.push(' ');
        }
        write_value(out, &m[k.as_str()], indent, depth + 1);
    }
    newline(out, indent, depth);
    out.push('}');
}

/// A JSON string with Go's escapes (J1.2).
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' if !mutant::on("RS-J1.2-html-unescaped") => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            '\u{2028}' | '\u{2029}' if !mutant::on("RS-J1.2-separators-raw") => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A number as Go writes the float64 it decodes to (J1.3).
pub fn number(n: &Number) -> String {
    if mutant::on("RS-J1.3-numbers-verbatim") {
        return n.to_string();
    }
    match n.as_f64() {
        Some(f) => float(f),
        None => n.to_string(),
    }
}

/// Go's encoding/json float64 form: 'f' between 1e-6 and 1e21, else 'e'
/// with a signed exponent of at least two digits (e+21), negative ones
/// unpadded (e-7).
pub fn float(f: f64) -> String {
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        return format!("{}", f);
    }
    let e = format!("{:e}", f);
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < 0 {
        format!("{}e-{}", mant, -exp)
    } else {
        format!("{}e+{:02}", mant, exp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn go_forms() {
        assert_eq!(compact(&json!({"b":1,"a":"<&>\u{2028}"})), r#"{"a":"\u003c\u0026\u003e\u2028","b":1}"#);
        assert_eq!(float(1e21), "1e+21");
        assert_eq!(float(1e-7), "1e-7");
        assert_eq!(float(1.5e-10), "1.5e-10");
        assert_eq!(float(100.0), "100");
        assert_eq!(float(0.5), "0.5");
        assert_eq!(indented(&json!({"a":[1,{}],"b":{}})), "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": {}\n}");
    }
}
