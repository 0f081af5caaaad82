//! A client session over either transport: the handshake (P5), or in the
//! modern era `server/discover` first and the handshake only when the
//! server is not of the 2026-07-28 revision (E2); the first page of tools,
//! calls with a bound and their cancellation (P10.2), each request of the
//! revision with its `_meta` (E3.1); and closing (P2).

use super::error::{calling, TIMEOUT_TEXT};
use super::http::{HttpConn, Rpc};
use super::jsonrpc;
use super::result::{self, CallResult};
use super::stdio::StdioConn;
use super::McpError;
use crate::config::Server;
use crate::era;
use crate::mutant;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::RwLock;

pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The versions the go-sdk v1.8.0 client supports, newest first: a
/// discover result is negotiated against them (E2.2).
const SUPPORTED: [&str; 5] = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The `_meta` keys of the 2026-07-28 revision (E2.1).
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_INFO: &str = "io.modelcontextprotocol/clientInfo";
const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";

/// The go-sdk's -32022: the server does not take the version asked for.
const UNSUPPORTED_VERSION: i64 = -32022;

#[derive(Clone)]
enum Conn {
    Stdio(Arc<StdioConn>),
    Http(Arc<HttpConn>),
}

/// A tool of the first `tools/list` page.
#[derive(Clone, Debug)]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub title: String,
    pub input_schema: Value,
}

pub struct Session {
    /// Replaced only by a mutant that restarts a stdio server to fall back.
    conn: Mutex<Conn>,
    next_id: AtomicU64,
    /// The version a `server/discover` negotiated (E2.2): every later
    /// request carries its `_meta` (E3.1). Unset in the handshake era.
    modern: OnceLock<String>,
    /// Held shared by each request, exclusively by a close that waits for
    /// the requests in flight (P2.4).
    inflight: RwLock<()>,
}

impl Session {
    /// Opens the transport: starts a stdio server, or prepares the HTTP one.
    pub fn open(cfg: &Server) -> Result<Session, String> {
        let conn = Mutex::new(Self::transport(cfg)?);
        Ok(Session { conn, next_id: AtomicU64::new(1), modern: OnceLock::new(), inflight: RwLock::new(()) })
    }

    fn transport(cfg: &Server) -> Result<Conn, String> {
        Ok(if cfg.transport() == "stdio" {
            Conn::Stdio(StdioConn::spawn(cfg)?)
        } else {
            Conn::Http(HttpConn::new(cfg)?)
        })
    }

    fn conn(&self) -> Conn {
        self.conn.lock().unwrap().clone()
    }

    fn id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// A request's raw result. Over HTTP its headers name the version of
    /// its `_meta` and, for a call, its tool, as the go-sdk reads them
    /// from the params.
    async fn request_raw(&self, id: u64, method: &str, params: Option<Value>) -> Result<Box<RawValue>, McpError> {
        let field = |v: Option<&Value>, k: &str| v.and_then(|v| v.get(k)).and_then(Value::as_str).map(str::to_string);
        let meta_version = field(params.as_ref().and_then(|p| p.get("_meta")), META_VERSION);
        let name = if method == "tools/call" { field(params.as_ref(), "name") } else { None };
        let body = jsonrpc::request(id, method, params);
        match self.conn() {
            Conn::Stdio(c) => c.request(id, body).await,
            Conn::Http(c) => {
                let rpc = Rpc { method: Some(method), meta_version: meta_version.as_deref(), name: name.as_deref() };
                c.request(id, rpc, body).await
            }
        }
    }

    /// A request's result as JSON.
    async fn request_id(&self, id: u64, method: &str, params: Option<Value>) -> Result<Value, McpError> {
        jsonrpc::value(&*self.request_raw(id, method, params).await?)
    }

    async fn notify(&self, method: &str, params: Value) -> Result<(), McpError> {
        let body = jsonrpc::notification(method, params);
        match self.conn() {
            Conn::Stdio(c) => c.notify(body).await,
            Conn::Http(c) => c.post_only(Some(method), body).await,
        }
    }

    /// Opens the server (P5, E2): in the modern era `server/discover`
    /// first, the handshake only when it does not open the server, on the
    /// same connection (over stdio, the same process).
    pub async fn open_server(&self, cfg: &Server) -> Result<(), String> {
        if !era::modern() {
            return self.initialize().await;
        }
        let discovered = {
            let _g = self.inflight.read().await;
            self.discover().await
        };
        match discovered {
            Ok(()) if mutant::on("RS-E2.2-handshake-anyway") => return self.initialize().await,
            Ok(()) => return Ok(()),
            Err(e) if mutant::on("RS-E2.3-no-fallback") => return Err(calling("server/discover", &e)),
            Err(_) if mutant::on("RS-E2.3-fallback-new-process") && cfg.transport() == "stdio" => {
                let old = self.conn();
                *self.conn.lock().unwrap() = Self::transport(cfg)?;
                if let Conn::Stdio(c) = old {
                    c.close(std::time::Duration::ZERO).await;
                }
            }
            Err(_) => {}
        }
        self.initialize().await
    }

    /// E2.1–E2.3: `server/discover`, once more with the version an
    /// UnsupportedProtocolVersion error names among those it supports (as
    /// the go-sdk v1.8.0 client, twice at most). Ok when the result
    /// negotiates a version of the revision, which then opens the server.
    async fn discover(&self) -> Result<(), McpError> {
        let mut version = era::MODERN.to_string();
        let tries = if mutant::on("RS-E2.3-discover-loop") { u32::MAX } else { 2 };
        let mut failure = None;
        for _ in 0..tries {
            let meta = if mutant::on("RS-E2.1-no-meta") { json!({}) } else { meta(&version) };
            let id = self.id();
            match self.request_id(id, "server/discover", Some(json!({"_meta": meta}))).await {
                Ok(res) => {
                    let Some(negotiated) = negotiate(&version, &res) else {
                        return Err(McpError::Rpc {
                            message: "unsupported protocol version".into(),
                            code: Some(UNSUPPORTED_VERSION),
                            data: None,
                        });
                    };
                    if let Conn::Http(c) = self.conn() {
                        c.set_modern(&negotiated);
                        if mutant::on("RS-E3.1-get-stream") {
                            c.open_stream();
                        }
                    }
                    let _ = self.modern.set(negotiated);
                    return Ok(());
                }
                Err(e) => {
                    if let Some(v) = supported_modern(&e).filter(|_| !mutant::on("RS-E2.3-no-rediscover")) {
                        version = v;
                    } else if !(mutant::on("RS-E2.3-discover-loop") && matches!(e, McpError::Rpc { .. })) {
                        return Err(e);
                    }
                    failure = Some(e);
                }
            }
        }
        Err(failure.unwrap_or_else(|| McpError::Transport("server/discover".into())))
    }

    /// The `_meta` of a later request (E3.1): none in the handshake era.
    fn later_meta(&self) -> Option<Value> {
        self.modern.get().map(|v| meta(v))
    }

    /// P5.1: `initialize`, the GET stream (HTTP), `notifications/initialized`.
    /// The error is worded `calling "initialize": …`.
    pub async fn initialize(&self) -> Result<(), String> {
        let _g = self.inflight.read().await;
        let caps = if mutant::on("RS-P5.1-no-capabilities") { json!({}) } else { json!({"roots": {"listChanged": true}}) };
        let version = if mutant::on("RS-P5.1-old-protocol") {
            "2025-06-18"
        } else if era::modern() && mutant::on("RS-E2.3-fallback-modern-version") {
            era::MODERN
        } else {
            PROTOCOL_VERSION
        };
        let params = json!({
            "clientInfo": client_info(),
            "protocolVersion": version,
            "capabilities": caps,
        });
        let id = self.id();
        let res = self.request_id(id, "initialize", Some(params)).await.map_err(|e| calling("initialize", &e))?;
        if let Conn::Http(c) = self.conn() {
            let negotiated = res.get("protocolVersion").and_then(Value::as_str).unwrap_or(PROTOCOL_VERSION);
            c.set_protocol(negotiated);
            c.open_stream();
        }
        if mutant::on("RS-P5.1-no-initialized") {
            return Ok(());
        }
        self.notify("notifications/initialized", json!({}))
            .await
            .map_err(|e| calling("notifications/initialized", &e))
    }

    /// P5.2: the first page of tools, without cursor.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, String> {
        let _g = self.inflight.read().await;
        let id = self.id();
        let params = self.later_meta().filter(|_| !mutant::on("RS-E3.1-no-meta-list")).map(|m| json!({"_meta": m}));
        let mut res = self.request_id(id, "tools/list", params).await.map_err(|e| calling("tools/list", &e))?;
        if mutant::on("RS-P5.2-all-pages") {
            while let Some(c) = res.get("nextCursor").and_then(Value::as_str).map(str::to_string) {
                let more = self.request_id(self.id(), "tools/list", Some(json!({"cursor": c}))).await;
                let Ok(mut more) = more else { break };
                let extra = more["tools"].as_array_mut().map(std::mem::take).unwrap_or_default();
                if let Some(t) = res["tools"].as_array_mut() {
                    t.extend(extra);
                }
                res["nextCursor"] = more["nextCursor"].take();
            }
        }
        let tools = res.get("tools").and_then(Value::as_array).cloned().unwrap_or_default();
        Ok(tools.iter().map(tool).collect())
    }

    /// A `tools/call` bounded by `bound`; past it the request is cancelled
    /// (`notifications/cancelled`) and fails with tokio's timeout text. A
    /// result the go-sdk could not read fails the call as an error answer
    /// does (P11.6), with the reader's text.
    pub async fn call_tool(&self, name: &str, args: Option<Value>, bound: Duration) -> Result<CallResult, String> {
        let _g = self.inflight.read().await;
        let mut params = json!({});
        if let Some(m) = self.later_meta().filter(|_| !mutant::on("RS-E3.1-no-meta-call")) {
            params["_meta"] = m; // first, in the go-sdk's order
        }
        params["name"] = name.into();
        if let Some(a) = args {
            params["arguments"] = a;
        }
        let id = self.id();
        match tokio::time::timeout(bound, self.request_raw(id, "tools/call", Some(params))).await {
            Ok(r) => r
                .and_then(|raw| result::read(raw.get()).map_err(McpError::Unreadable))
                .map_err(|e| calling("tools/call", &e)),
            Err(_) => {
                if let Conn::Stdio(c) = self.conn() {
                    c.forget(id);
                }
                let cancel = json!({"requestId": id, "reason": TIMEOUT_TEXT});
                let _ = tokio::time::timeout(Duration::from_secs(5), self.notify("notifications/cancelled", cancel)).await;
                Err(calling("tools/call", &McpError::Timeout))
            }
        }
    }

    /// P2.2, P2.5: closes once the requests in flight ended.
    pub async fn close(&self, grace: Duration) {
        let _g = self.inflight.write().await;
        self.close_now(grace).await;
    }

    /// Closes without waiting for the requests in flight (an attempt that
    /// failed or was cancelled, shutdown).
    pub async fn close_now(&self, grace: Duration) {
        match self.conn() {
            Conn::Stdio(c) => c.close(grace).await,
            Conn::Http(c) => c.close().await,
        }
    }
}

fn client_info() -> Value {
    json!({"name": "mcpparity-rust", "version": env!("CARGO_PKG_VERSION")})
}

/// The `_meta` of a request of the revision (E2.1), its keys sorted as
/// the go-sdk writes a map.
fn meta(version: &str) -> Value {
    let mut m = Map::new();
    if !mutant::on("RS-E2.1-no-capabilities") {
        m.insert(META_CAPS.into(), json!({"roots": {"listChanged": true}}));
    }
    m.insert(META_INFO.into(), client_info());
    m.insert(META_VERSION.into(), version.into());
    Value::Object(m)
}

/// E2.2: the version a discover result opens, as the go-sdk negotiates
/// it: the one asked for when the server lists it, else the newest the
/// client supports among those listed; None when that is older than the
/// revision (or the list is not one of strings: the go-sdk could not read
/// the result).
fn negotiate(asked: &str, res: &Value) -> Option<String> {
    let listed: Vec<&str> = match res.get("supportedVersions") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => v.as_array()?.iter().map(Value::as_str).collect::<Option<_>>()?,
    };
    if mutant::on("RS-E2.2-any-result-opens") {
        return Some(asked.to_string());
    }
    let v = if listed.contains(&asked) { Some(asked) } else { SUPPORTED.into_iter().find(|v| listed.contains(v)) };
    v.filter(|v| era::is_modern_version(v)).map(str::to_string)
}

/// E2.3: the version to discover again with, when `e` is the go-sdk's
/// UnsupportedProtocolVersion error and its data lists a supported one of
/// the revision.
fn supported_modern(e: &McpError) -> Option<String> {
    let McpError::Rpc { code: Some(UNSUPPORTED_VERSION), data: Some(data), .. } = e else { return None };
    let listed: Vec<&str> = data.get("supported")?.as_array()?.iter().map(Value::as_str).collect::<Option<_>>()?;
    let v = SUPPORTED.into_iter().find(|v| listed.contains(v))?;
    era::is_modern_version(v).then(|| v.to_string())
}

fn tool(v: &Value) -> Tool {
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    Tool {
        name: s("name"),
        description: s("description"),
        title: s("title"),
        input_schema: v.get("inputSchema").cloned().unwrap_or(Value::Null),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_as_the_go_sdk_writes_it() {
        let m = serde_json::to_string(&meta("2026-07-28")).unwrap();
        let want = concat!(
            r#"{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"#,
            r#""io.modelcontextprotocol/clientInfo":{"name":"mcpparity-rust","version":"#,
            "\"",
            env!("CARGO_PKG_VERSION"),
            r#""},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#
        );
        assert_eq!(m, want);
    }

    #[test]
    fn negotiated_as_the_go_sdk() {
        let got = |res: Value| negotiate(era::MODERN, &res);
        assert_eq!(got(json!({"supportedVersions": ["2025-11-25", "2026-07-28"]})).as_deref(), Some("2026-07-28"));
        assert_eq!(got(json!({"supportedVersions": ["2025-11-25", "2025-06-18"]})), None);
        assert_eq!(got(json!({"supportedVersions": null})), None);
        assert_eq!(got(json!({})), None);
        // A list the go-sdk cannot read fails the discover: the fallback.
        assert_eq!(got(json!({"supportedVersions": ["2026-07-28", 1]})), None);
        assert_eq!(got(json!({"supportedVersions": "2026-07-28"})), None);
    }

    #[test]
    fn discovered_again_with_a_supported_version() {
        let e = |code, data| McpError::Rpc { message: "x".into(), code: Some(code), data };
        let again = |code, data| supported_modern(&e(code, data));
        assert_eq!(again(-32022, Some(json!({"supported": ["2025-11-25", "2026-07-28"]}))).as_deref(), Some("2026-07-28"));
        assert_eq!(again(-32022, Some(json!({"supported": ["2025-11-25"]}))), None);
        assert_eq!(again(-32022, None), None);
        assert_eq!(again(-32601, Some(json!({"supported": ["2026-07-28"]}))), None);
    }
}
