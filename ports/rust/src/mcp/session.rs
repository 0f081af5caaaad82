//! A client session over either transport: the handshake (P5), the first
//! page of tools, calls with a bound and their cancellation (P10.2), and
//! closing (P2).

use super::error::{calling, TIMEOUT_TEXT};
use super::http::HttpConn;
use super::jsonrpc;
use super::result::{self, CallResult};
use super::stdio::StdioConn;
use super::McpError;
use crate::config::Server;
use crate::mutant;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::RwLock;

pub const PROTOCOL_VERSION: &str = "2025-11-25";

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
    conn: Conn,
    next_id: AtomicU64,
    /// Held shared by each request, exclusively by a close that waits for
    /// the requests in flight (P2.4).
    inflight: RwLock<()>,
}

impl Session {
    /// Opens the transport: starts a stdio server, or prepares the HTTP one.
    pub fn open(cfg: &Server) -> Result<Session, String> {
        let conn = if cfg.transport() == "stdio" {
            Conn::Stdio(StdioConn::spawn(cfg)?)
        } else {
            Conn::Http(HttpConn::new(cfg)?)
        };
        Ok(Session { conn, next_id: AtomicU64::new(1), inflight: RwLock::new(()) })
    }

    fn id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// A request's raw result.
    async fn request_raw(&self, id: u64, method: &str, params: Option<Value>) -> Result<Box<RawValue>, McpError> {
        let body = jsonrpc::request(id, method, params);
        match &self.conn {
            Conn::Stdio(c) => c.request(id, body).await,
            Conn::Http(c) => c.request(id, method, body).await,
        }
    }

    /// A request's result as JSON.
    async fn request_id(&self, id: u64, method: &str, params: Option<Value>) -> Result<Value, McpError> {
        jsonrpc::value(&*self.request_raw(id, method, params).await?)
    }

    async fn notify(&self, method: &str, params: Value) -> Result<(), McpError> {
        let body = jsonrpc::notification(method, params);
        match &self.conn {
            Conn::Stdio(c) => c.notify(body).await,
            Conn::Http(c) => c.post_only(body).await,
        }
    }

    /// P5.1: `initialize`, the GET stream (HTTP), `notifications/initialized`.
    /// The error is worded `calling "initialize": …`.
    pub async fn initialize(&self) -> Result<(), String> {
        let _g = self.inflight.read().await;
        let caps = if mutant::on("RS-P5.1-no-capabilities") { json!({}) } else { json!({"roots": {"listChanged": true}}) };
        let version = if mutant::on("RS-P5.1-old-protocol") { "2025-06-18" } else { PROTOCOL_VERSION };
        let params = json!({
            "clientInfo": {"name": "mcpparity-rust", "version": env!("CARGO_PKG_VERSION")},
            "protocolVersion": version,
            "capabilities": caps,
        });
        let id = self.id();
        let res = self.request_id(id, "initialize", Some(params)).await.map_err(|e| calling("initialize", &e))?;
        if let Conn::Http(c) = &self.conn {
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
        let mut res = self.request_id(id, "tools/list", None).await.map_err(|e| calling("tools/list", &e))?;
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
        let mut params = json!({"name": name});
        if let Some(a) = args {
            params["arguments"] = a;
        }
        let id = self.id();
        match tokio::time::timeout(bound, self.request_raw(id, "tools/call", Some(params))).await {
            Ok(r) => r
                .and_then(|raw| result::read(raw.get()).map_err(McpError::Unreadable))
                .map_err(|e| calling("tools/call", &e)),
            Err(_) => {
                if let Conn::Stdio(c) = &self.conn {
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
        match &self.conn {
            Conn::Stdio(c) => c.close(grace).await,
            Conn::Http(c) => c.close().await,
        }
    }
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
