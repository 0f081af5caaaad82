//! The Streamable HTTP transport: one POST per message (Accept naming
//! both answer types), the answer read as JSON or as an SSE stream, the
//! session followed through `Mcp-Session-Id`, the standalone GET stream
//! for the server's own requests, the configured headers on every request
//! (P6.5), a DELETE when the session ends (P2.5). A connection opened by
//! `server/discover` (E2) has no session, no GET stream and no DELETE; its
//! requests carry the headers of the 2026-07-28 revision (E3.1).

use super::jsonrpc::{self, Incoming};
use super::sse;
use super::{server_requests, McpError};
use crate::config::Server;
use crate::era;
use crate::mutant;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming as Body;
use hyper::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use serde_json::value::RawValue;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::task::JoinHandle;

const SESSION: &str = "mcp-session-id";
const PROTOCOL: &str = "mcp-protocol-version";
const MCP_METHOD: &str = "mcp-method";
const MCP_NAME: &str = "mcp-name";
/// The bound of a DELETE and of a server request's answer.
const SIDE_BOUND: Duration = Duration::from_secs(5);

type Connector = HttpsConnector<HttpConnector>;

/// One client for every session: HTTP/1.1, plain or over TLS (rustls,
/// Mozilla's roots), keep-alive connections pooled.
fn client() -> &'static Client<Connector, Full<Bytes>> {
    static C: OnceLock<Client<Connector, Full<Bytes>>> = OnceLock::new();
    C.get_or_init(|| {
        let mut tcp = HttpConnector::new();
        tcp.set_nodelay(true);
        tcp.enforce_http(false);
        let tls = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .wrap_connector(tcp);
        Client::builder(TokioExecutor::new()).build(tls)
    })
}

/// The text of an error and its sources.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}

pub struct HttpConn {
    url: Uri,
    configured: HeaderMap,
    session: Mutex<Option<String>>,
    protocol: Mutex<Option<String>>,
    /// Opened by `server/discover` (E2.2).
    modern: AtomicBool,
    stream: Mutex<Option<JoinHandle<()>>>,
    /// Set by an answer outside 2xx (P10.7): the connection is over and
    /// every later request fails at once with this text, nothing sent.
    ended: Mutex<Option<String>>,
}

/// What a POST carries, as its headers name it: the JSON-RPC method (none
/// for an answer to the server), the version its `_meta` names, and the
/// tool of a `tools/call` (E2.1, E3.1).
#[derive(Clone, Copy, Default)]
pub struct Rpc<'a> {
    pub method: Option<&'a str>,
    pub meta_version: Option<&'a str>,
    pub name: Option<&'a str>,
}

impl HttpConn {
    pub fn new(cfg: &Server) -> Result<Arc<HttpConn>, String> {
        let url: Uri = cfg.url.parse().map_err(|e| format!("url {:?}: {}", cfg.url, e))?;
        if !matches!(url.scheme_str(), Some("http" | "https")) {
            return Err(format!("url {:?}: only http:// and https:// are supported", cfg.url));
        }
        let mut configured = HeaderMap::new();
        for (k, v) in &cfg.headers {
            let name = HeaderName::from_bytes(k.as_bytes()).map_err(|e| format!("header {:?}: {}", k, e))?;
            let value = HeaderValue::from_str(v).map_err(|e| format!("header {:?}: {}", k, e))?;
            configured.insert(name, value);
        }
        Ok(Arc::new(HttpConn {
            url,
            configured,
            session: Mutex::new(None),
            protocol: Mutex::new(None),
            modern: AtomicBool::new(false),
            stream: Mutex::new(None),
            ended: Mutex::new(None),
        }))
    }

    fn is_modern(&self) -> bool {
        self.modern.load(Ordering::Relaxed)
    }

    /// The headers of every request after `initialize`, then the configured
    /// ones (which replace a header of the same name). The version is the
    /// request's `_meta`'s, else the negotiated one; from 2026-07-28 on,
    /// `Mcp-Method` and a call's `Mcp-Name` follow, as the go-sdk sets them.
    fn headers(&self, method: &Method, rpc: Rpc<'_>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if method == Method::POST {
            let accept = if mutant::on("RS-P6.5-accept-json-only") {
                "application/json"
            } else {
                "application/json, text/event-stream"
            };
            h.insert(ACCEPT, HeaderValue::from_static(accept));
            h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        } else if method == Method::GET {
            h.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        }
        let session = self.session.lock().unwrap().clone();
        if let Some(s) = session.filter(|_| !mutant::on("RS-P6.5-session-dropped")) {
            if let Ok(v) = HeaderValue::from_str(&s) {
                h.insert(SESSION, v);
            }
        }
        let negotiated = self.protocol.lock().unwrap().clone().filter(|_| !mutant::on("RS-P6.5-no-protocol-header"));
        let meta = rpc.meta_version.filter(|_| !mutant::on("RS-E2.1-no-version-header"));
        let protocol = meta.map(str::to_string).or(negotiated);
        if let Some(p) = &protocol {
            if let Ok(v) = HeaderValue::from_str(p) {
                h.insert(PROTOCOL, v);
            }
        }
        let of_revision = protocol.as_deref().is_some_and(era::is_modern_version);
        let standard = (self.is_modern() || rpc.meta_version.is_some()) && of_revision;
        if standard && method == Method::POST {
            if let Some(m) = rpc.method.filter(|_| !mutant::on("RS-E3.1-no-method-header")) {
                if let Ok(v) = HeaderValue::from_str(m) {
                    h.insert(MCP_METHOD, v);
                }
            }
            let name = rpc.name.filter(|_| rpc.method == Some("tools/call") && !mutant::on("RS-E3.1-no-name-header"));
            if let Some(v) = name.and_then(|n| HeaderValue::from_bytes(n.as_bytes()).ok()) {
                h.insert(MCP_NAME, v);
            }
        }
        if !mutant::on("RS-P6.5-headers-dropped") {
            for (k, v) in &self.configured {
                h.insert(k.clone(), v.clone());
            }
        }
        h
    }

    async fn send(&self, method: Method, rpc: Rpc<'_>, body: Vec<u8>) -> Result<Response<Body>, McpError> {
        let mut req = Request::builder().method(method.clone()).uri(self.url.clone());
        if let Some(h) = req.headers_mut() {
            *h = self.headers(&method, rpc);
        }
        let req = req.body(Full::new(Bytes::from(body))).map_err(|e| McpError::Transport(e.to_string()))?;
        client().request(req).await.map_err(|e| McpError::Transport(chain(&e)))
    }

    /// Sends a request and reads its answer, answering the server's
    /// requests that come on its stream.
    pub async fn request(self: &Arc<Self>, id: u64, rpc: Rpc<'_>, body: Vec<u8>) -> Result<Box<RawValue>, McpError> {
        let method = rpc.method.unwrap_or("");
        if let Some(why) = self.ended.lock().unwrap().clone() {
            return Err(McpError::Transport(format!("connection closed: {}", why)));
        }
        let resp = self.send(Method::POST, rpc, body).await?;
        let status = resp.status();
        if method == "initialize" {
            let sid = resp.headers().get(SESSION).and_then(|v| v.to_str().ok()).map(str::to_string);
            *self.session.lock().unwrap() = sid; // P5.5: none when none was given
        }
        if self.is_modern() && mutant::on("RS-E3.1-session-kept") {
            if let Some(sid) = resp.headers().get(SESSION).and_then(|v| v.to_str().ok()) {
                *self.session.lock().unwrap() = Some(sid.to_string());
            }
        }
        let session = self.session.lock().unwrap().clone();
        // E2.3: a refused server/discover falls back on the same connection.
        let resp = refuse_failure(resp, Some(method), self.is_modern(), session)
            .await
            .map_err(|e| if method == "server/discover" { e } else { self.end_on(status, e) })?;
        if method == "initialize" && self.session.lock().unwrap().is_none() && mutant::on("RS-P5.5-session-required") {
            return Err(McpError::Transport("no Mcp-Session-Id".into()));
        }
        let ctype = content_type(&resp);
        if ctype.starts_with("text/event-stream") {
            return self.read_stream(resp.into_body(), Some(id)).await;
        }
        let bytes = read_body(resp.into_body()).await?;
        let msgs = jsonrpc::parse_batch(&bytes)
            .map_err(|e| McpError::Transport(format!("invalid JSON answer ({}): {}", ctype, e)))?;
        for m in msgs {
            if let Incoming::Response { id: got, outcome } = m {
                if jsonrpc::id_is(&got, id) {
                    return outcome;
                }
            }
        }
        Err(McpError::Transport("the JSON answer holds no response to the request".into()))
    }

    /// P10.7: a failure answered with a status outside 2xx ends the
    /// connection, but for the transient ones.
    fn end_on(&self, status: StatusCode, e: McpError) -> McpError {
        if !transient(status) && !mutant::on("RS-P10.7-status-keeps-connection") {
            *self.ended.lock().unwrap() = Some(e.to_string());
        }
        e
    }

    /// Sets the protocol version negotiated by `initialize`.
    pub fn set_protocol(&self, version: &str) {
        *self.protocol.lock().unwrap() = Some(version.to_string());
    }

    /// E2.2: opened by `server/discover` with `version`: no session, no
    /// GET stream, nothing sent on close.
    pub fn set_modern(&self, version: &str) {
        self.set_protocol(version);
        self.modern.store(true, Ordering::Relaxed);
    }

    /// A notification (`method`) or an answer (None): accepted with 202
    /// (or 200).
    pub async fn post_only(&self, method: Option<&str>, body: Vec<u8>) -> Result<(), McpError> {
        let resp = self.send(Method::POST, Rpc { method, ..Rpc::default() }, body).await?;
        if mutant::on("RS-P5.1-notification-needs-200") && resp.status() != StatusCode::OK {
            return Err(McpError::Transport(format!("HTTP {}", resp.status())));
        }
        let resp = refuse_failure(resp, None, self.is_modern(), None).await?;
        let _ = read_body(resp.into_body()).await;
        Ok(())
    }

    /// Reads an event stream: the response to `want` ends it; server
    /// requests are answered as they come.
    async fn read_stream(self: &Arc<Self>, mut body: Body, want: Option<u64>) -> Result<Box<RawValue>, McpError> {
        let mut parser = sse::Parser::default();
        loop {
            let frame = match body.frame().await {
                None => break,
                Some(Ok(f)) => f,
                Some(Err(e)) => return Err(McpError::Transport(chain(&e))),
            };
            let Some(data) = frame.data_ref() else { continue };
            for ev in parser.feed(data) {
                if let Some(v) = self.on_event(ev, want) {
                    return v;
                }
                if mutant::on("RS-P6.2-first-event-only") && want.is_some() {
                    return Err(McpError::Transport("the event stream ended before the response".into()));
                }
            }
        }
        Err(McpError::Transport("the event stream ended before the response".into()))
    }

    fn on_event(self: &Arc<Self>, ev: sse::Event, want: Option<u64>) -> Option<Result<Box<RawValue>, McpError>> {
        match jsonrpc::parse(ev.data.as_bytes())? {
            Incoming::Response { id, outcome } if want.is_some_and(|w| jsonrpc::id_is(&id, w)) => Some(outcome),
            Incoming::Request { id, method, .. } if !server_requests::silent(&method) => {
                let me = self.clone();
                tokio::spawn(async move {
                    let line = jsonrpc::answer(&id, server_requests::answer(&method));
                    let _ = tokio::time::timeout(SIDE_BOUND, me.post_only(None, line)).await;
                });
                None
            }
            _ => None,
        }
    }

    /// Opens the standalone GET stream, for the server's requests outside
    /// a call's answer; a server without one (405) is fine.
    pub fn open_stream(self: &Arc<Self>) {
        if mutant::on("RS-P6.2-no-get-stream") {
            return;
        }
        let me = self.clone();
        let task = tokio::spawn(async move {
            let Ok(resp) = me.send(Method::GET, Rpc::default(), Vec::new()).await else { return };
            if resp.status() == StatusCode::OK && content_type(&resp).starts_with("text/event-stream") {
                let _ = me.read_stream(resp.into_body(), None).await;
            }
        });
        *self.stream.lock().unwrap() = Some(task);
    }

    /// Ends the session: the GET stream stopped, then a DELETE naming the
    /// session (P2.5).
    pub async fn close(&self) {
        if let Some(t) = self.stream.lock().unwrap().take() {
            t.abort();
        }
        let delete_anyway = self.is_modern() && mutant::on("RS-E3.1-delete-on-close");
        if (self.session.lock().unwrap().is_none() && !delete_anyway) || mutant::on("RS-P2.5-no-delete") {
            return;
        }
        let _ = tokio::time::timeout(SIDE_BOUND, async {
            if let Ok(resp) = self.send(Method::DELETE, Rpc::default(), Vec::new()).await {
                let _ = read_body(resp.into_body()).await;
            }
        })
        .await;
    }
}

impl Drop for HttpConn {
    fn drop(&mut self) {
        if let Some(t) = self.stream.lock().unwrap().take() {
            t.abort();
        }
    }
}

fn content_type(resp: &Response<Body>) -> String {
    resp.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase()
}

async fn read_body(body: Body) -> Result<Bytes, McpError> {
    body.collect().await.map(|c| c.to_bytes()).map_err(|e| McpError::Transport(chain(&e)))
}

/// An answer of 400 or more is a failure. A request's is read by its
/// status alone, as the reference's go-sdk words it (P5.4, E3.2): `sending
/// "<method>": <status text>`, the JSON-RPC error in its body unread; a
/// 404 (the session is gone, P10) and a notification's keep their status
/// and text, but for a connection without session (`modern`), whose 404
/// is read by its status too.
async fn refuse_failure(resp: Response<Body>, method: Option<&str>, modern: bool, session: Option<String>) -> Result<Response<Body>, McpError> {
    let status = resp.status();
    if status.as_u16() < 400 {
        return Ok(resp);
    }
    let bytes = read_body(resp.into_body()).await.unwrap_or_default();
    if modern && method.is_some() && mutant::on("RS-E3.2-error-body-read") {
        if let Some(Incoming::Response { outcome: Err(e), .. }) = jsonrpc::parse(&bytes) {
            return Err(e);
        }
    }
    match method {
        Some(m) if !mutant::on("RS-P5.4-refusal-body") => Err(McpError::Transport(status_text(m, status, session.as_deref()))),
        _ => Err(McpError::Transport(format!("HTTP {}: {}", status, String::from_utf8_lossy(&bytes).trim()))),
    }
}

/// P10.7: 429, 500, 502, 503 and 504 keep their connection.
fn transient(status: StatusCode) -> bool {
    matches!(status.as_u16(), 429 | 500 | 502 | 503 | 504)
}

/// P10.7: the text of a request's answer outside 2xx, by its status
/// alone, as the go-sdk words it: a 404 names the missing session (its id,
/// empty without one; in the 2026-07-28 era only when there is one), a
/// transient status is "rejected by transport".
fn status_text(method: &str, status: StatusCode, session: Option<&str>) -> String {
    let sending = format!("sending \"{}\"", method);
    let reason = status.canonical_reason().unwrap_or(status.as_str());
    if status == StatusCode::NOT_FOUND && (session.is_some() || !era::modern()) {
        return format!("{}: failed to connect (session ID: {}): session not found", sending, session.unwrap_or(""));
    }
    if transient(status) {
        return format!("rejected by transport: {}: {}", sending, reason);
    }
    format!("{}: {}", sending, reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn(headers: &[(&str, &str)]) -> Arc<HttpConn> {
        let cfg = Server {
            url: "http://127.0.0.1:1/mcp".into(),
            headers: headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            ..Server::default()
        };
        HttpConn::new(&cfg).unwrap()
    }

    #[test]
    fn headers_of_each_method() {
        let c = conn(&[("X-Api-Key", "k")]);
        let post = c.headers(&Method::POST, Rpc::default());
        assert_eq!(post[ACCEPT], "application/json, text/event-stream");
        assert_eq!(post[CONTENT_TYPE], "application/json");
        assert_eq!(post["x-api-key"], "k");
        assert!(post.get(SESSION).is_none() && post.get(PROTOCOL).is_none());
        *c.session.lock().unwrap() = Some("s1".into());
        c.set_protocol("2025-11-25");
        assert_eq!(c.headers(&Method::GET, Rpc::default())[ACCEPT], "text/event-stream");
        let del = c.headers(&Method::DELETE, Rpc::default());
        assert!(del.get(ACCEPT).is_none());
        assert_eq!(del[SESSION], "s1");
        assert_eq!(del[PROTOCOL], "2025-11-25");
    }

    #[test]
    fn a_configured_header_replaces_ours() {
        let c = conn(&[("accept", "*/*")]);
        let post = c.headers(&Method::POST, Rpc::default());
        assert_eq!(post.get_all(ACCEPT).iter().count(), 1);
        assert_eq!(post[ACCEPT], "*/*");
    }

    #[test]
    fn headers_of_the_revision() {
        let c = conn(&[]);
        let call = Rpc { method: Some("tools/call"), meta_version: Some("2026-07-28"), name: Some("echo") };
        let h = c.headers(&Method::POST, call);
        assert_eq!(h[PROTOCOL], "2026-07-28");
        assert_eq!(h[MCP_METHOD], "tools/call");
        assert_eq!(h[MCP_NAME], "echo");
        // The handshake era's requests carry none of them.
        let init = c.headers(&Method::POST, Rpc { method: Some("initialize"), ..Rpc::default() });
        assert!(init.get(PROTOCOL).is_none() && init.get(MCP_METHOD).is_none());
        c.set_protocol("2025-11-25");
        let list = c.headers(&Method::POST, Rpc { method: Some("tools/list"), ..Rpc::default() });
        assert_eq!(list[PROTOCOL], "2025-11-25");
        assert!(list.get(MCP_METHOD).is_none());
        // Opened by discover: a notification names its method, an answer none.
        c.set_modern("2026-07-28");
        let n = c.headers(&Method::POST, Rpc { method: Some("notifications/cancelled"), ..Rpc::default() });
        assert_eq!(n[PROTOCOL], "2026-07-28");
        assert_eq!(n[MCP_METHOD], "notifications/cancelled");
        let a = c.headers(&Method::POST, Rpc::default());
        assert!(a.get(MCP_METHOD).is_none() && a.get(MCP_NAME).is_none());
    }

    #[test]
    fn bad_urls() {
        let bad = |u: &str| HttpConn::new(&Server { url: u.into(), ..Server::default() }).is_err();
        assert!(bad("ftp://x/mcp") && bad("not a url"));
        assert!(!bad("https://example.com/mcp"));
    }
}
