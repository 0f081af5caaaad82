//! The routes of H4: the changes (C4–C7), the status (P16), the catalog
//! (P17) and the agent's side (P8, P9–P15, H4.4).

use super::body;
use super::reply;
use crate::catalog;
use crate::config::Server;
use crate::mutant;
use crate::pool::{call, status, tools, Pool};
use crate::text;
use bytes::Bytes;
use http_body_util::Full;
use hyper::Response;
use serde_json::{json, Map, Value};
use std::sync::Arc;

type Answer = Response<Full<Bytes>>;

pub async fn get(pool: &Arc<Pool>, path: &str) -> Answer {
    if path == "/api/mcp/catalog" {
        let workspace = pool.workspace.to_string_lossy().to_string();
        return match catalog::entries(&pool.catalog, &workspace, &pool.config()) {
            Ok(list) => reply::json(200, &json!({"ok": true, "catalog": list})),
            Err(e) => reply::error(500, &e),
        };
    }
    status_answer(pool).await
}

async fn status_answer(pool: &Arc<Pool>) -> Answer {
    reply::json(200, &json!({"ok": true, "servers": status::servers(pool).await}))
}

pub async fn post(pool: &Arc<Pool>, path: &str, b: Map<String, Value>) -> Answer {
    let res = match path {
        "/api/mcp/save" => save(pool, &b).await,
        "/api/mcp/delete" => delete(pool, &b).await,
        "/api/mcp/toggle" => toggle(pool, &b).await,
        "/api/mcp/tool" => tool(pool, &b).await,
        "/api/mcp/test" => test(pool, &b).await,
        "/internal/facade/v1/mcp/tools" => {
            let (list, prompt) = tools::announce(pool).await;
            let list = if list.is_empty() && mutant::on("RS-H4.2-null-tools") { Value::Null } else { json!(list) };
            Ok(reply::json(200, &json!({"ok": true, "tools": list, "prompt": prompt})))
        }
        "/internal/facade/v1/mcp/call" => call_route(pool, &b).await,
        _ if mutant::on("RS-H4.4-prewarm-awaited") => {
            let cfg = pool.config();
            pool.connect_all(&cfg).await;
            Ok(reply::json(200, &json!({"ok": true})))
        }
        _ => {
            pool.prewarm();
            Ok(reply::json(202, &json!({"ok": true})))
        }
    };
    res.unwrap_or_else(|e| reply::error(400, &e))
}

/// C4: trim, check the name, validate, replace whole, invalidate.
async fn save(pool: &Arc<Pool>, b: &Map<String, Value>) -> Result<Answer, String> {
    let raw = body::string(b, "name")?;
    let mut s = Server {
        command: body::string(b, "command")?,
        args: body::strings(b, "args")?,
        env: body::string_map(b, "env")?,
        url: body::string(b, "url")?,
        headers: body::string_map(b, "headers")?,
        enabled: body::boolean(b, "enabled")?.unwrap_or(!mutant::on("RS-C4.6-disabled-by-default")),
        disabled_tools: Vec::new(),
    };
    let name = if mutant::on("RS-C4.1-name-untrimmed") { raw.as_str() } else { text::trim(&raw) };
    if name.is_empty() {
        return Err("nom de serveur vide".into());
    }
    let reserved = if mutant::on("RS-C4.3-middle-only") {
        name.trim_matches('_').contains("__")
    } else {
        name.contains("__")
    };
    if reserved {
        return Err("le nom ne peut pas contenir '__' (réservé au namespacing des outils)".into());
    }
    if !mutant::on("RS-C4.4-untrimmed") {
        s.command = text::trim(&s.command).to_string();
        s.url = text::trim(&s.url).to_string();
    }
    s.validate()?;
    let mut cfg = pool.config();
    if mutant::on("RS-C4.6-merged") {
        if let Some(old) = cfg.get(name) {
            s.disabled_tools = old.disabled_tools.clone();
        }
    }
    cfg.insert(name.to_string(), s);
    pool.save_config(&cfg).map_err(|e| format!("écriture de la configuration: {}", e))?;
    if !mutant::on("RS-C4.7-no-invalidation") {
        pool.invalidate(name);
    }
    Ok(status_answer(pool).await)
}

fn unknown(name: &str) -> String {
    format!("serveur MCP inconnu: {}", name)
}

async fn delete(pool: &Arc<Pool>, b: &Map<String, Value>) -> Result<Answer, String> {
    let name = body::string(b, "name")?;
    let mut cfg = pool.config();
    let key = if mutant::on("RS-C5.1-trimmed") { text::trim(&name).to_string() } else { name.clone() };
    if cfg.remove(&key).is_none() {
        return Err(unknown(&name));
    }
    pool.save_config(&cfg).map_err(|e| format!("écriture de la configuration: {}", e))?;
    pool.invalidate(&key);
    if mutant::on("RS-H4.1-delete-answers-status") {
        return Ok(status_answer(pool).await);
    }
    Ok(reply::json(200, &json!({"ok": true})))
}

async fn toggle(pool: &Arc<Pool>, b: &Map<String, Value>) -> Result<Answer, String> {
    let name = body::string(b, "name")?;
    let on = body::boolean(b, "on")?.unwrap_or(mutant::on("RS-H2.4-on-defaults-true"));
    let mut cfg = pool.config();
    let Some(s) = cfg.get_mut(&name) else { return Err(unknown(&name)) };
    s.enabled = on;
    pool.save_config(&cfg).map_err(|e| format!("écriture de la configuration: {}", e))?;
    pool.invalidate(&name);
    Ok(status_answer(pool).await)
}

/// C6: the tool removed from the hidden ones, appended when turned off.
async fn tool(pool: &Arc<Pool>, b: &Map<String, Value>) -> Result<Answer, String> {
    let name = body::string(b, "name")?;
    let tool = body::string(b, "tool")?;
    let on = body::boolean(b, "on")?.unwrap_or(false);
    let mut cfg = pool.config();
    let Some(s) = cfg.get_mut(&name) else { return Err(unknown(&name)) };
    if mutant::on("RS-C6.1-first-only") {
        if let Some(i) = s.disabled_tools.iter().position(|t| *t == tool) {
            s.disabled_tools.remove(i);
        }
    } else {
        s.disabled_tools.retain(|t| *t != tool);
    }
    let refused = tool.is_empty() && mutant::on("RS-C6.3-empty-refused");
    if !on && !refused {
        if mutant::on("RS-C6.2-prepended") {
            s.disabled_tools.insert(0, tool);
        } else {
            s.disabled_tools.push(tool);
        }
    }
    pool.save_config(&cfg).map_err(|e| format!("écriture de la configuration: {}", e))?;
    if !mutant::on("RS-C7.1-tool-toggle-kept") {
        pool.invalidate(&name);
    }
    Ok(status_answer(pool).await)
}

/// C5.2: the test checks nothing; it drops the session and answers the
/// status, which connects again.
async fn test(pool: &Arc<Pool>, b: &Map<String, Value>) -> Result<Answer, String> {
    let name = body::string(b, "name")?;
    if mutant::on("RS-C5.2-unknown-refused") && !pool.config().contains_key(&name) {
        return Err(unknown(&name));
    }
    pool.invalidate(&name);
    Ok(status_answer(pool).await)
}

async fn call_route(pool: &Arc<Pool>, b: &Map<String, Value>) -> Result<Answer, String> {
    let name = body::string(b, "name")?;
    let args = body::object(b, "args")?;
    let window = body::integer(b, "contextWindow")?;
    let output = call::call(pool, &name, args, window).await;
    let label = text::label(args);
    Ok(reply::json(200, &json!({"ok": true, "output": output, "label": label})))
}
