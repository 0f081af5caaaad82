//! Texts the model sees: white space as Go knows it, exposed names (P7.1),
//! flattening (P11), the cap (P12), tool errors (P13), the prompt line
//! (P14) and the call label (P15).

use crate::gojson;
use crate::mutant;
use serde_json::{Map, Value};

/// Unicode White_Space as Go's unicode.IsSpace knows it.
pub fn is_space(c: char) -> bool {
    if mutant::on("RS-C4.1-ascii-space") {
        return c.is_ascii_whitespace() || c == '\u{b}';
    }
    matches!(c, '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{85}' | '\u{a0}' | '\u{1680}'
        | '\u{2000}'..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}')
}

/// `s` without white space at either end (Go's strings.TrimSpace).
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// P7.1: runs outside [a-zA-Z0-9_-] become one `_`, then `_` trimmed.
pub fn sanitize(s: &str) -> String {
    let mut out = String::new();
    let mut in_run = false;
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
            in_run = false;
        } else if !in_run || mutant::on("RS-P7.1-no-run-collapse") {
            out.push('_');
            in_run = true;
        }
    }
    if mutant::on("RS-P7.1-no-trim") {
        return out;
    }
    out.trim_matches('_').to_string()
}

/// The exposed name of a server's tool (P7.1).
pub fn exposed(server: &str, tool: &str) -> String {
    format!("mcp__{}__{}", sanitize(server), sanitize(tool))
}

/// P11: the content blocks of a result as one string.
pub fn flatten(result: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(blocks) = result.get("content").and_then(Value::as_array) {
        for b in blocks {
            parts.push(block_text(b));
        }
    }
    let sep = if mutant::on("RS-P11.2-join-space") { " " } else { "\n" };
    let joined = parts.join(sep);
    let s = if mutant::on("RS-P11.2-no-trim") { joined.as_str() } else { trim(&joined) };
    match result.get("structuredContent") {
        Some(sc) if s.is_empty() && !sc.is_null() => {
            if mutant::on("RS-P11.3-compact") {
                gojson::compact(sc)
            } else {
                gojson::indented(sc)
            }
        }
        _ => s.to_string(),
    }
}

fn block_text(b: &Value) -> String {
    let field = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("");
    match field("type") {
        "text" => field("text").to_string(),
        "image" if !mutant::on("RS-P11.1-image-json") => format!("[image {}]", field("mimeType")),
        "audio" => {
            let kind = if mutant::on("RS-P11.1-audio-as-image") { "image" } else { "audio" };
            format!("[{} {}]", kind, field("mimeType"))
        }
        _ => block_json(b),
    }
}

/// J1.4: a content block in the go-sdk's field order, the fields of its
/// type only, empty fields omitted.
pub fn block_json(b: &Value) -> String {
    const ORDER: [&str; 13] = ["type", "text", "mimeType", "data", "resource", "uri", "name", "title",
        "description", "size", "_meta", "annotations", "icons"];
    const RESOURCE: [&str; 5] = ["uri", "mimeType", "text", "blob", "_meta"];
    // The fields a block of its type has (the go-sdk drops the others).
    let own: &[&str] = match b.get("type").and_then(Value::as_str) {
        Some("resource_link") => &["type", "mimeType", "uri", "name", "title", "description", "size", "_meta",
            "annotations", "icons"],
        Some("resource") => &["type", "resource", "_meta", "annotations"],
        _ => &ORDER,
    };
    let mut keys: Vec<&str> = ORDER.iter().copied().filter(|k| own.contains(k)).collect();
    if mutant::on("RS-J1.4-sorted-fields") {
        keys.sort();
    }
    ordered(b, &keys, Some(("resource", &RESOURCE)))
}

/// The fields of v in order, empty ones omitted; the field named by
/// nested, an object, in its own order.
fn ordered(v: &Value, order: &[&str], nested: Option<(&str, &[&str])>) -> String {
    let mut out = String::from("{");
    let mut first = true;
    for &k in order {
        let Some(f) = v.get(k) else { continue };
        let annotations = k == "annotations" && f.is_object();
        if is_empty(f) && !annotations {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        gojson::write_string(&mut out, k);
        out.push(':');
        match nested {
            _ if annotations => out.push_str(&annotations_json(f)),
            Some((name, inner)) if name == k => out.push_str(&ordered(f, inner, None)),
            _ => gojson::write_value(&mut out, f, None, 0),
        }
    }
    out.push('}');
    out
}

/// J1.4: annotations as the go-sdk reads them: its three keys in order,
/// each omitted when empty (a priority of 0 too), `{}` when none is left.
fn annotations_json(v: &Value) -> String {
    const KEYS: [&str; 3] = ["audience", "lastModified", "priority"];
    let mut kept = serde_json::Map::new();
    for k in KEYS {
        match v.get(k) {
            Some(f) if !is_empty(f) && f.as_f64() != Some(0.0) => {
                kept.insert(k.to_string(), f.clone());
            }
            _ => {}
        }
    }
    let mut out = String::new();
    gojson::write_value(&mut out, &Value::Object(kept), None, 0);
    out
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// P12: the output cut at max(contextWindow, 12000) runes.
pub fn cap(s: String, context_window: i64) -> String {
    let cap = if mutant::on("RS-P12.2-fixed-cap") {
        12000
    } else if mutant::on("RS-P12.2-min-cap") {
        context_window.clamp(0, 12000) as usize
    } else {
        context_window.max(12000) as usize
    };
    let count = if mutant::on("RS-P12.1-bytes") { s.len() } else { s.chars().count() };
    let over = if mutant::on("RS-P12.3-cut-at-cap") { count >= cap } else { count > cap };
    if !over {
        return s;
    }
    let kept: String = s.chars().take(cap).collect();
    format!("{}\n…[tronqué]", kept)
}

/// P11–P13: the output of a call's result.
pub fn output(result: &Value, context_window: i64) -> String {
    let text = cap(flatten(result), context_window);
    let is_error = result.get("isError").and_then(Value::as_bool).unwrap_or(false);
    if is_error && !mutant::on("RS-P13.1-error-ignored") {
        return format!("[l'outil a renvoyé une erreur]\n{}", text);
    }
    if text.is_empty() && !mutant::on("RS-P13.2-empty-kept") {
        return "[ok] (aucune sortie)".to_string();
    }
    text
}

/// P15: the label of a call.
pub fn label(args: Option<&Map<String, Value>>) -> String {
    let Some(args) = args.filter(|a| !a.is_empty()) else { return String::new() };
    let keys: &[&str] = if mutant::on("RS-P15.1-name-first") {
        &["name", "path", "file", "query", "command", "url"]
    } else {
        &["path", "file", "query", "command", "url", "name"]
    };
    for k in keys {
        if let Some(Value::String(s)) = args.get(*k) {
            let taken = if mutant::on("RS-P15.1-blank-skipped") { !trim(s).is_empty() } else { !s.is_empty() };
            if taken {
                return s.clone();
            }
        }
    }
    let json = gojson::compact(&Value::Object(args.clone()));
    let limit = if mutant::on("RS-P15.2-cut-119") { 119 } else { 120 };
    if json.chars().count() > limit {
        let kept: String = json.chars().take(limit).collect();
        return format!("{}…", kept);
    }
    json
}

/// P14: the prompt line of the connected servers, `(name, tool count)`.
pub fn prompt_line(servers: &[(String, usize)]) -> String {
    let mut items: Vec<String> = servers
        .iter()
        .filter(|(_, n)| *n > 0 || mutant::on("RS-P14.1-empty-listed"))
        .map(|(name, n)| format!("{} ({})", name, n))
        .collect();
    if items.is_empty() {
        return String::new();
    }
    if !mutant::on("RS-P14.2-sorted-by-name") {
        items.sort();
    }
    format!(
        "\n\nMCP servers connected (their tools are prefixed mcp__<server>__<tool>): {}.",
        items.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names() {
        assert_eq!(sanitize("My Server!"), "My_Server");
        assert_eq!(sanitize("ops :: prod"), "ops_prod");
        assert_eq!(sanitize("__x__"), "x");
        assert_eq!(sanitize("édge"), "dge");
        assert_eq!(sanitize("😀😀"), "");
        assert_eq!(trim("\u{85} a\u{feff}"), "a\u{feff}");
    }

    #[test]
    fn outputs() {
        let r = json!({"content":[{"type":"text","text":" a "},{"type":"image","mimeType":"image/png"}]});
        assert_eq!(output(&r, 0), "a \n[image image/png]");
        assert_eq!(output(&json!({"content":[]}), 0), "[ok] (aucune sortie)");
        assert_eq!(output(&json!({"content":[],"isError":true}), 0), "[l'outil a renvoyé une erreur]\n");
        let long = "é".repeat(12001);
        assert_eq!(cap(long.clone(), 12001), long);
        assert!(cap(long, 0).ends_with("é\n…[tronqué]"));
    }

    #[test]
    fn labels() {
        let a = json!({"name":"n","path":""});
        assert_eq!(label(a.as_object()), "n");
        let a = json!({"b":"<","a":1});
        assert_eq!(label(a.as_object()), r#"{"a":1,"b":"\u003c"}"#);
        assert_eq!(label(None), "");
        assert_eq!(prompt_line(&[("b".into(), 1), ("a".into(), 2)]), "\n\nMCP servers connected (their tools are prefixed mcp__<server>__<tool>): a (2), b (1).");
    }
}
