//! P17: the catalog file handed over as {catalog}, its {workspace}
//! resolved, each entry marked installed and runtimeOk.

use crate::config::Config;
use crate::lookpath;
use crate::mutant;
use serde_json::{Map, Value};
use std::path::Path;

/// The entries of the catalog; Err when the file cannot be read.
pub fn entries(file: &Path, workspace: &str, cfg: &Config) -> Result<Vec<Value>, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("catalogue: {}", e))?;
    let doc: Value = serde_json::from_slice(&bytes).map_err(|e| format!("catalogue: {}", e))?;
    let list = doc.get("servers").and_then(Value::as_array).cloned().unwrap_or_default();
    Ok(list.iter().map(|e| entry(e, workspace, cfg)).collect())
}

fn resolve(s: &str, workspace: &str) -> String {
    if mutant::on("RS-P17.2-first-only") {
        return s.replacen("{workspace}", workspace, 1);
    }
    s.replace("{workspace}", workspace)
}

fn entry(e: &Value, workspace: &str, cfg: &Config) -> Value {
    let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let mut m = Map::new();
    for k in ["id", "name", "category", "description"] {
        m.insert(k.into(), s(k).into());
    }
    let optional = !mutant::on("RS-P17.5-empty-kept");
    for k in ["homepage", "runtime"] {
        if !(optional && s(k).is_empty()) {
            m.insert(k.into(), s(k).into());
        }
    }
    m.insert("command".into(), s("command").into());
    let args: Vec<Value> = e.get("args").and_then(Value::as_array).into_iter().flatten()
        .map(|a| Value::String(resolve(a.as_str().unwrap_or(""), workspace))).collect();
    if !(optional && args.is_empty()) {
        m.insert("args".into(), Value::Array(args));
    }
    let env: Map<String, Value> = e.get("env").and_then(Value::as_object).into_iter().flatten()
        .map(|(k, v)| {
            let v = if mutant::on("RS-P17.2-env-unresolved") { v.as_str().unwrap_or("").to_string() } else { resolve(v.as_str().unwrap_or(""), workspace) };
            (k.clone(), Value::String(v))
        }).collect();
    if !(optional && env.is_empty()) {
        m.insert("env".into(), Value::Object(env));
    }
    let secrets = e.get("secrets").and_then(Value::as_array).cloned().unwrap_or_default();
    if !(optional && secrets.is_empty()) {
        m.insert("secrets".into(), Value::Array(secrets));
    }
    let id = s("id");
    let installed = if mutant::on("RS-P17.3-by-name") { cfg.contains_key(&s("name")) } else { cfg.contains_key(&id) };
    m.insert("installed".into(), installed.into());
    m.insert("runtimeOk".into(), runtime_ok(&s("runtime")).into());
    Value::Object(m)
}

/// P17.4: the runtime's launcher is on the service's PATH.
fn runtime_ok(runtime: &str) -> bool {
    let launcher = match runtime {
        "node" => "npx",
        "python" if mutant::on("RS-P17.4-uv-for-python") => "uv",
        "python" => "uvx",
        _ if mutant::on("RS-P17.4-other-not-ok") => return false,
        _ => return true,
    };
    lookpath::look_path(launcher).is_ok()
}
