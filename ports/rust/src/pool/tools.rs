//! P8: the tools announced to the model; P14: the prompt line.

use super::{Outcome, Pool};
use crate::mutant;
use crate::text;
use serde_json::{json, Value};
use std::sync::Arc;

/// The `tools` and `prompt` of the tools route.
pub async fn announce(pool: &Arc<Pool>) -> (Vec<Value>, String) {
    let cfg = pool.config();
    let outcomes = pool.connect_all(&cfg).await;
    let mut tools = Vec::new();
    for (name, s) in &cfg {
        let Some(o) = outcomes.get(name) else { continue };
        let Outcome::Connected(r) = &**o else { continue };
        if r.list_error.is_some() {
            continue;
        }
        let mut listed: Vec<_> = r.tools.iter().collect();
        if mutant::on("RS-P8.2-tools-sorted") {
            listed.sort_by(|a, b| a.name.cmp(&b.name));
        }
        for t in listed {
            if s.disabled_tools.contains(&t.name) && !mutant::on("RS-P8.2-hidden-announced") {
                continue;
            }
            tools.push(json!({
                "name": text::exposed(name, &t.name),
                "description": description(name, &t.description, &t.title),
                "parameters": parameters(&t.input_schema),
            }));
        }
    }
    (tools, prompt(pool))
}

/// P8.3: `[MCP: <server>] ` and the description, or the title.
fn description(server: &str, description: &str, title: &str) -> String {
    let server = if mutant::on("RS-P8.3-sanitized-prefix") { text::sanitize(server) } else { server.to_string() };
    let body = if description.is_empty() && !mutant::on("RS-P8.3-no-title") { title } else { description };
    format!("[MCP: {}] {}", server, body)
}

/// P8.4: the input schema as sent, or an empty object schema.
fn parameters(schema: &Value) -> Value {
    match schema {
        Value::Object(m) if !(m.is_empty() && mutant::on("RS-P8.4-empty-replaced")) => schema.clone(),
        _ => json!({"type": "object", "properties": {}}),
    }
}

/// P14: the connected servers with tools, with the count of all of them.
pub fn prompt(pool: &Pool) -> String {
    let mut servers = Vec::new();
    for (name, o) in pool.outcomes() {
        if let Outcome::Connected(r) = &*o {
            servers.push((name, r.tools.len()));
        }
    }
    text::prompt_line(&servers)
}
