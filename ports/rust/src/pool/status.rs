//! P16: the status of every configured server, connecting first.

use super::{Outcome, Pool};
use crate::config::{string_map, Server};
use crate::mutant;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The `servers` of a status answer: `null` when none is configured (P16.7).
pub async fn servers(pool: &Arc<Pool>) -> Value {
    let cfg = pool.config();
    if cfg.is_empty() && !mutant::on("RS-P16.7-empty-list") {
        return Value::Null;
    }
    let outcomes = pool.connect_all(&cfg).await;
    let list: Vec<Value> = cfg.iter().map(|(name, s)| entry(name, s, outcomes.get(name).map(|o| &**o))).collect();
    Value::Array(list)
}

fn entry(name: &str, s: &Server, outcome: Option<&Outcome>) -> Value {
    let (connected, error, tools) = match outcome {
        None => (false, String::new(), Vec::new()),
        Some(Outcome::Failed(e)) => (false, e.clone(), Vec::new()),
        Some(Outcome::Connected(r)) => {
            let names: Vec<String> = r.tools.iter().map(|t| t.name.clone()).collect();
            let names = if mutant::on("RS-P16.1-hidden-dropped") {
                names.into_iter().filter(|n| !s.disabled_tools.contains(n)).collect()
            } else {
                names
            };
            (true, r.list_error.clone().unwrap_or_default(), names)
        }
    };
    let mut m = Map::new();
    m.insert("name".into(), name.into());
    m.insert("transport".into(), s.transport().into());
    m.insert("enabled".into(), s.enabled.into());
    m.insert("connected".into(), connected.into());
    if !error.is_empty() {
        m.insert("error".into(), error.into());
    }
    if tools.is_empty() && mutant::on("RS-H3.1-null-tools") {
        m.insert("tools".into(), Value::Null);
    } else {
        m.insert("tools".into(), json!(tools));
    }
    m.insert("disabled".into(), json!(s.disabled_tools));
    let mut put = |k: &str, empty: bool, v: Value| {
        if !empty {
            m.insert(k.into(), v);
        }
    };
    put("command", s.command.is_empty(), s.command.clone().into());
    put("args", s.args.is_empty(), json!(s.args));
    put("env", s.env.is_empty(), string_map(&s.env));
    put("url", s.url.is_empty(), s.url.clone().into());
    put("headers", s.headers.is_empty(), string_map(&s.headers));
    Value::Object(m)
}
