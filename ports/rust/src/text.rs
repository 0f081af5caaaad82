//! Texts the model sees: white space as Go knows it, exposed names (P7.1),
//! flattening (P11), the cap (P12), tool errors (P13), the prompt line
//! (P14) and the call label (P15).

use crate::gojson;
use crate::mcp::result::{base64_encode, Annotations, Block, CallResult, Icon, Resource};
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
pub fn flatten(result: &CallResult) -> String {
    let parts: Vec<String> = result.content.iter().map(block_text).collect();
    let sep = if mutant::on("RS-P11.2-join-space") { " " } else { "\n" };
    let joined = parts.join(sep);
    let s = if mutant::on("RS-P11.2-no-trim") { joined.as_str() } else { trim(&joined) };
    match &result.structured {
        Some(sc) if s.is_empty() => {
            if mutant::on("RS-P11.3-compact") {
                gojson::compact(sc)
            } else {
                gojson::indented(sc)
            }
        }
        _ => s.to_string(),
    }
}

fn block_text(b: &Block) -> String {
    let w = &b.wire;
    match w.typ.as_str() {
        "text" => w.text.clone(),
        "image" if !mutant::on("RS-P11.1-image-json") => format!("[image {}]", w.mime_type),
        "audio" => {
            let kind = if mutant::on("RS-P11.1-audio-as-image") { "image" } else { "audio" };
            format!("[{} {}]", kind, w.mime_type)
        }
        _ => block_json(b),
    }
}

/// The go-sdk's wireContent fields, in its order.
const WIRE_ORDER: [&str; 19] = ["type", "text", "mimeType", "data", "resource", "uri", "name", "title", "description",
    "size", "_meta", "annotations", "icons", "id", "input", "toolUseId", "content", "structuredContent", "isError"];

/// J1.4: a content block as the go-sdk writes it: the fields of its type
/// only, in its order, empty ones omitted but those a type always writes
/// (a tool_use's `id`, `name`, `input`; a tool_result's `toolUseId`,
/// `content`). A tool_result's blocks, and text, image and audio blocks
/// written as JSON, take the form they have once read back into the
/// wire struct (its empty fields omitted).
pub fn block_json(b: &Block) -> String {
    let w = &b.wire;
    let (own, always): (&[&str], &[&str]) = match w.typ.as_str() {
        "text" => (&["type", "text", "_meta", "annotations"], &[]),
        "image" | "audio" => (&["type", "mimeType", "data", "_meta", "annotations"], &[]),
        "resource_link" => (&["type", "mimeType", "uri", "name", "title", "description", "size", "_meta", "annotations", "icons"], &[]),
        "resource" => (&["type", "resource", "_meta", "annotations"], &[]),
        "tool_use" => (&["type", "id", "name", "input", "_meta"], &["id", "name", "input"]),
        "tool_result" => (&["type", "toolUseId", "content", "structuredContent", "isError", "_meta"], &["toolUseId", "content"]),
        _ => (&WIRE_ORDER, &[]),
    };
    let always: &[&str] = if mutant::on("RS-J1.4-tool-empty-omitted") { &[] } else { always };
    let mut keys = own.to_vec();
    if mutant::on("RS-J1.4-sorted-fields") {
        keys.sort();
    }
    let mut out = String::from("{");
    for k in keys {
        let v = match field_json(b, k) {
            Some(v) => v,
            None if always.contains(&k) => match k {
                "input" => "{}".to_string(),
                "content" => "[]".to_string(),
                _ => "\"\"".to_string(),
            },
            None => continue,
        };
        if out.len() > 1 {
            out.push(',');
        }
        gojson::write_string(&mut out, k);
        out.push(':');
        out.push_str(&v);
    }
    out.push('}');
    out
}

fn str_json(s: &str) -> Option<String> {
    if s.is_empty() {
        return None;
    }
    let mut out = String::new();
    gojson::write_string(&mut out, s);
    Some(out)
}

fn map_json(m: &Option<Map<String, Value>>) -> Option<String> {
    m.as_ref().filter(|m| !m.is_empty()).map(|m| gojson::compact(&Value::Object(m.clone())))
}

/// One field's JSON, None when empty.
fn field_json(b: &Block, k: &str) -> Option<String> {
    let w = &b.wire;
    match k {
        "type" => str_json(&w.typ),
        "text" => str_json(&w.text),
        "mimeType" => str_json(&w.mime_type),
        "data" => Some(w.data.items()).filter(|d| !d.is_empty()).map(|d| format!("\"{}\"", base64_encode(d))),
        "resource" => w.resource.as_deref().map(resource_json),
        "uri" => str_json(&w.uri),
        "name" => str_json(&w.name),
        "title" => str_json(&w.title),
        "description" => str_json(&w.description),
        "size" => w.size.map(|n| n.to_string()),
        "_meta" => map_json(&w.meta),
        "annotations" => w.annotations.as_deref().map(annotations_json),
        "icons" => Some(w.icons.items()).filter(|i| !i.is_empty()).map(icons_json),
        "id" => str_json(&w.id),
        "input" => map_json(&w.input),
        "toolUseId" => str_json(&w.tool_use_id),
        "content" => Some(&b.nested)
            .filter(|n| !n.is_empty())
            .map(|n| format!("[{}]", n.iter().map(block_json).collect::<Vec<_>>().join(","))),
        "structuredContent" => w.structured.as_ref().map(gojson::compact),
        "isError" => w.is_error.then(|| "true".to_string()),
        _ => None,
    }
}

/// An embedded resource: `uri` always, `blob` whenever one was read
/// (even empty), the others omitted when empty.
fn resource_json(r: &Resource) -> String {
    let mut fields = vec![("uri", str_json(&r.uri).unwrap_or_else(|| "\"\"".to_string()))];
    fields.extend(str_json(&r.mime_type).map(|v| ("mimeType", v)));
    fields.extend(str_json(&r.text).map(|v| ("text", v)));
    if !r.blob.nil {
        fields.push(("blob", format!("\"{}\"", base64_encode(r.blob.items()))));
    }
    fields.extend(map_json(&r.meta).map(|v| ("_meta", v)));
    object(&fields)
}

/// J1.4: annotations as the go-sdk holds them: its three keys in order,
/// each omitted when empty (a priority of 0 too), `{}` when none is left.
fn annotations_json(a: &Annotations) -> String {
    let mut fields = Vec::new();
    if !a.audience.items().is_empty() {
        fields.push(("audience", strings_json(a.audience.items())));
    }
    fields.extend(str_json(&a.last_modified).map(|v| ("lastModified", v)));
    if a.priority != 0.0 {
        fields.push(("priority", gojson::float(a.priority)));
    }
    object(&fields)
}

/// Icons as the go-sdk writes them: `src` always.
fn icons_json(icons: &[Icon]) -> String {
    let each: Vec<String> = icons
        .iter()
        .map(|i| {
            let mut fields = vec![("src", str_json(&i.src).unwrap_or_else(|| "\"\"".to_string()))];
            fields.extend(str_json(&i.mime_type).map(|v| ("mimeType", v)));
            if !i.sizes.items().is_empty() {
                fields.push(("sizes", strings_json(i.sizes.items())));
            }
            fields.extend(str_json(&i.theme).map(|v| ("theme", v)));
            object(&fields)
        })
        .collect();
    format!("[{}]", each.join(","))
}

fn strings_json(items: &[String]) -> String {
    gojson::compact(&Value::Array(items.iter().cloned().map(Value::String).collect()))
}

/// An object of JSON texts, in the order given.
fn object(fields: &[(&str, String)]) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        gojson::write_string(&mut out, k);
        out.push(':');
        out.push_str(v);
    }
    out.push('}');
    out
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
pub fn output(result: &CallResult, context_window: i64) -> String {
    let text = cap(flatten(result), context_window);
    if result.is_error && !mutant::on("RS-P13.1-error-ignored") {
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

    fn out(raw: &str) -> String {
        output(&crate::mcp::result::read(raw).unwrap(), 0)
    }

    #[test]
    fn outputs() {
        assert_eq!(out(r#"{"content":[{"type":"text","text":" a "},{"type":"image","mimeType":"image/png"}]}"#), "a \n[image image/png]");
        assert_eq!(out(r#"{"content":[]}"#), "[ok] (aucune sortie)");
        assert_eq!(out(r#"{"content":[],"isError":true}"#), "[l'outil a renvoyé une erreur]\n");
        assert_eq!(out("null"), "[ok] (aucune sortie)");
        assert_eq!(out(r#"{"content":[],"structuredContent":"x<y"}"#), "\"x\\u003cy\"");
        assert_eq!(out(r#"{"content":[],"structuredContent":[1,"a",{}]}"#), "[\n  1,\n  \"a\",\n  {}\n]");
        let long = "é".repeat(12001);
        assert_eq!(cap(long.clone(), 12001), long);
        assert!(cap(long, 0).ends_with("é\n…[tronqué]"));
    }

    #[test]
    fn blocks_as_the_go_sdk_writes_them() {
        let cases = [
            (r#"{"content":[{"type":"resource_link","name":"n","x":1}]}"#, r#"{"type":"resource_link","name":"n"}"#),
            (r#"{"content":[{"type":"resource","resource":{}}]}"#, r#"{"type":"resource","resource":{"uri":""}}"#),
            (
                r#"{"content":[{"type":"resource","resource":{"uri":"u","blob":"","text":"t","x":1},"annotations":{"priority":0,"x":1}}]}"#,
                r#"{"type":"resource","resource":{"uri":"u","text":"t","blob":""},"annotations":{}}"#,
            ),
            (
                r#"{"content":[{"type":"resource_link","size":0,"icons":[{"sizes":["1"],"x":1}],"text":"dropped"}]}"#,
                r#"{"type":"resource_link","size":0,"icons":[{"src":"","sizes":["1"]}]}"#,
            ),
            (
                r#"{"content":[{"type":"tool_use","name":"n","id":"i","input":{"b":1,"a":2},"x":1,"_meta":{"z":1}}]}"#,
                r#"{"type":"tool_use","id":"i","name":"n","input":{"a":2,"b":1},"_meta":{"z":1}}"#,
            ),
            (r#"{"content":[{"type":"tool_use","input":null,"annotations":{"priority":1}}]}"#, r#"{"type":"tool_use","id":"","name":"","input":{}}"#),
            (
                r#"{"content":[{"type":"tool_result","_meta":{"m":1},"toolUseId":"i","isError":true,"content":[{"type":"image","data":"aGl=","mimeType":"x"},{"type":"text"}],"structuredContent":{"b":1}}]}"#,
                r#"{"type":"tool_result","toolUseId":"i","content":[{"type":"image","mimeType":"x","data":"aGk="},{"type":"text"}],"structuredContent":{"b":1},"isError":true,"_meta":{"m":1}}"#,
            ),
            (r#"{"content":[{"type":"tool_result","structuredContent":0}]}"#, r#"{"type":"tool_result","toolUseId":"","content":[],"structuredContent":0}"#),
        ];
        for (raw, want) in cases {
            assert_eq!(out(raw), want, "{}", raw);
        }
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

