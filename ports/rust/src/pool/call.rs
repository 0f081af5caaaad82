//! P9, P10: a call resolved through the registry, made on the pool's
//! session, retried once on a new session when it failed and its server
//! is still configured and enabled.

use super::{time, Pool};
use crate::mcp::result::CallResult;
use crate::mutant;
use crate::text;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The output of a call (P9–P13).
pub async fn call(pool: &Arc<Pool>, name: &str, args: Option<&Map<String, Value>>, context_window: i64) -> String {
    let Some((server, tool)) = resolve(pool, name) else {
        if mutant::on("RS-P9.1-short-text") {
            return format!("[erreur] outil MCP inconnu: {}", name);
        }
        return format!("[erreur] outil MCP inconnu ou serveur non connecté: {}", name);
    };
    if mutant::on("RS-P9.2-hidden-refused") {
        let hidden = pool.config().get(&server).is_some_and(|s| s.disabled_tools.contains(&tool));
        if hidden {
            return format!("[erreur] outil MCP inconnu ou serveur non connecté: {}", name);
        }
    }
    let args = args.map(|a| Value::Object(a.clone()));
    let first = match attempt(pool, &server, &tool, args.clone()).await {
        Ok(r) => return text::output(&r, context_window),
        Err(e) => e,
    };
    let cfg = pool.config();
    let live = cfg.get(&server).is_some_and(|s| s.enabled || mutant::on("RS-P10.3-retry-disabled"));
    let expired = mutant::on("RS-P10.3-expiry-final") && (first.contains("session not found") || first.contains("Not Found"));
    if !live || expired || mutant::on("RS-P10.3-no-retry") {
        return format!("[erreur MCP] {}", first);
    }
    if !mutant::on("RS-P10.3-same-session") {
        pool.invalidate(&server);
        if let Some(s) = cfg.get(&server) {
            pool.ensure(&server, s).wait().await;
        }
    }
    match attempt(pool, &server, &tool, args).await {
        Ok(r) => text::output(&r, context_window),
        Err(e) if mutant::on("RS-P10.4-first-error") => {
            let _ = e;
            format!("[erreur MCP] {}", first)
        }
        Err(e) => format!("[erreur MCP] {}", e),
    }
}

fn resolve(pool: &Pool, name: &str) -> Option<(String, String)> {
    if mutant::on("RS-P7.3-resolve-by-split") {
        let rest = name.strip_prefix("mcp__")?;
        let (s, t) = rest.split_once("__")?;
        return Some((s.to_string(), t.to_string()));
    }
    pool.resolve(name)
}

/// One attempt on the pool's session (P10.1), bounded (P10.2). A tool
/// error is a result, not a failure.
async fn attempt(pool: &Pool, server: &str, tool: &str, args: Option<Value>) -> Result<CallResult, String> {
    let Some(session) = pool.session(server) else {
        return Err(format!("serveur {} non connecté", server));
    };
    session.call_tool(tool, args, time::call_bound()).await
}
