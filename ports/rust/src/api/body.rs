//! Request bodies (H1.1, H1.5, H2): read up to 1 MiB, the first JSON value
//! decoded, fields read as Go's decoder reads them.

use super::reply;
use crate::config::fold_eq;
use crate::mutant;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub const LIMIT: usize = 1 << 20;
const TOO_LARGE: &str = "corps de requête trop volumineux";
/// How much of a body past the limit is read before answering.
const DRAIN_BYTES: usize = 64 << 20;
const DRAIN_TIME: std::time::Duration = std::time::Duration::from_secs(10);

type Refusal = Response<Full<Bytes>>;

/// The body's JSON object: an empty body and `null` read as `{}`; a
/// second value after the first, or a value that is no object, is refused.
pub async fn read(req: Request<Incoming>) -> Result<Map<String, Value>, Refusal> {
    let limit = if mutant::on("RS-H1.5-limit-off-by-one") { LIMIT - 1 } else { LIMIT };
    let bytes = match collect(req.into_body(), limit).await {
        Ok(Some(b)) => b,
        Ok(None) => return Err(reply::error(413, TOO_LARGE)),
        Err(e) => return Err(reply::error(400, &format!("lecture du corps: {}", e))),
    };
    let status = if mutant::on("RS-H1.1-malformed-500") { 500 } else { 400 };
    decode(&bytes).map_err(|e| reply::error(status, &format!("JSON invalide: {}", e)))
}

/// The body, or None past `limit`. A body past the limit is still read to
/// its end (bounded), so that the client, still sending, gets the answer.
async fn collect(mut body: Incoming, limit: usize) -> Result<Option<Vec<u8>>, String> {
    let mut buf = Vec::new();
    let mut seen = 0usize;
    let deadline = tokio::time::Instant::now() + DRAIN_TIME;
    while seen <= DRAIN_BYTES {
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) if seen > limit => break,
            Err(_) => return Err("délai de lecture dépassé".into()),
            Ok(None) => break,
            Ok(Some(f)) => f.map_err(|e| e.to_string())?,
        };
        let Some(data) = frame.data_ref() else { continue };
        seen += data.len();
        if seen <= limit {
            buf.extend_from_slice(data);
        }
    }
    Ok((seen <= limit).then_some(buf))
}

fn decode(bytes: &[u8]) -> Result<Map<String, Value>, String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    let first = values.next().unwrap_or(Ok(Value::Null)).map_err(|e| e.to_string())?;
    if values.next().is_some() {
        return Err("une seule valeur JSON est attendue".into());
    }
    match first {
        Value::Null if mutant::on("RS-H2.1-null-body-refused") => Err("corps null".into()),
        Value::Null => Ok(Map::new()),
        Value::Object(m) => Ok(m),
        _ => Err("un objet JSON est attendu".into()),
    }
}

/// The last field matching `name` as Go matches it; `null` is absent.
pub fn field<'a>(m: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    m.iter().rev().find(|(k, _)| fold_eq(k, name)).map(|(_, v)| v).filter(|v| !v.is_null())
}

pub fn string(m: &Map<String, Value>, name: &str) -> Result<String, String> {
    match field(m, name) {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(format!("'{}' doit être une chaîne", name)),
    }
}

pub fn boolean(m: &Map<String, Value>, name: &str) -> Result<Option<bool>, String> {
    match field(m, name) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(Value::String(s)) if mutant::on("RS-H2.2-string-bool-accepted") => Ok(Some(s == "true")),
        Some(_) => Err(format!("'{}' doit être un booléen", name)),
    }
}

pub fn strings(m: &Map<String, Value>, name: &str) -> Result<Vec<String>, String> {
    match field(m, name) {
        None => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Null => Ok(String::new()),
                _ => Err(format!("'{}' doit être une liste de chaînes", name)),
            })
            .collect(),
        Some(_) => Err(format!("'{}' doit être une liste de chaînes", name)),
    }
}

pub fn string_map(m: &Map<String, Value>, name: &str) -> Result<BTreeMap<String, String>, String> {
    match field(m, name) {
        None => Ok(BTreeMap::new()),
        Some(Value::Object(o)) => o
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                Value::Null => Ok((k.clone(), String::new())),
                _ => Err(format!("'{}' doit être un objet de chaînes", name)),
            })
            .collect(),
        Some(_) => Err(format!("'{}' doit être un objet de chaînes", name)),
    }
}

pub fn object<'a>(m: &'a Map<String, Value>, name: &str) -> Result<Option<&'a Map<String, Value>>, String> {
    match field(m, name) {
        None => Ok(None),
        Some(Value::Object(o)) => Ok(Some(o)),
        Some(_) => Err(format!("'{}' doit être un objet", name)),
    }
}

pub fn integer(m: &Map<String, Value>, name: &str) -> Result<i64, String> {
    match field(m, name) {
        None => Ok(0),
        Some(Value::Number(n)) if n.is_i64() => Ok(n.as_i64().unwrap_or(0)),
        Some(_) => Err(format!("'{}' doit être un entier", name)),
    }
}
