//! JSON answers and the error shapes of H1.

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Method, Response};
use serde_json::{json, Value};

pub fn json(status: u16, v: &Value) -> Response<Full<Bytes>> {
    let body = serde_json::to_vec(v).unwrap_or_default();
    Response::builder()
        .status(status)
        .header("content-type", "application/json; charset=utf-8")
        .body(Full::new(Bytes::from(body)))
        .unwrap_or_default()
}

/// `{"ok":false,"error":…}` with `status`.
pub fn error(status: u16, text: &str) -> Response<Full<Bytes>> {
    json(status, &json!({"ok": false, "error": text}))
}

/// H1.3: 405 naming the route's method.
pub fn not_allowed(method: &Method, want: &Method) -> Response<Full<Bytes>> {
    let mut r = error(405, &format!("méthode non autorisée: {}", method));
    if let Ok(v) = want.as_str().parse() {
        r.headers_mut().insert("allow", v);
    }
    r
}
