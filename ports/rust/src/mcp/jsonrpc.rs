//! JSON-RPC 2.0 messages: what the client writes (fields in the go-sdk's
//! order) and what it reads.

use super::McpError;
use crate::config::Members;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A request; `params` None writes none (tools/list, as the go-sdk).
pub fn request(id: u64, method: &str, params: Option<Value>) -> Vec<u8> {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), "2.0".into());
    m.insert("id".into(), id.into());
    m.insert("method".into(), method.into());
    if let Some(p) = params {
        m.insert("params".into(), p);
    }
    serde_json::to_vec(&Value::Object(m)).unwrap_or_default()
}

/// A notification.
pub fn notification(method: &str, params: Value) -> Vec<u8> {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), "2.0".into());
    m.insert("method".into(), method.into());
    m.insert("params".into(), params);
    serde_json::to_vec(&Value::Object(m)).unwrap_or_default()
}

/// The answer to a server request: a result or an error.
pub fn answer(id: &Value, outcome: Result<Value, (i64, String)>) -> Vec<u8> {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), "2.0".into());
    let id = if crate::mutant::on("RS-P6.2-ping-wrong-id") { Value::from(0) } else { id.clone() };
    m.insert("id".into(), id);
    match outcome {
        Ok(r) => {
            m.insert("result".into(), r);
        }
        Err((code, message)) => {
            let mut e = Map::new();
            e.insert("code".into(), code.into());
            e.insert("message".into(), message.into());
            m.insert("error".into(), Value::Object(e));
        }
    }
    serde_json::to_vec(&Value::Object(m)).unwrap_or_default()
}

/// A message the server sent. A response's result stays the text the
/// server wrote (a call's result is read as the go-sdk reads it, P11.6).
#[derive(Debug)]
pub enum Incoming {
    Response { id: Value, outcome: Result<Box<RawValue>, McpError> },
    Request { id: Value, method: String },
    Notification,
}

/// Reads one message; None when it is not a JSON-RPC message. A member
/// given twice: the later one.
pub fn parse(text: &[u8]) -> Option<Incoming> {
    let Members(members) = serde_json::from_slice::<Members<Box<RawValue>>>(text).ok()?;
    let mut m: Vec<(String, Box<RawValue>)> = Vec::new();
    for (k, v) in members {
        m.retain(|(seen, _)| *seen != k);
        m.push((k, v));
    }
    let mut take = |name: &str| m.iter().position(|(k, _)| k == name).map(|i| m.remove(i).1);
    let value = |raw: Option<Box<RawValue>>| -> Option<Option<Value>> {
        match raw {
            None => Some(None),
            Some(r) => serde_json::from_str::<Value>(r.get()).ok().map(Some),
        }
    };
    let id = value(take("id"))?;
    let method = value(take("method"))?;
    let error = value(take("error"))?;
    let result = take("result");
    match (method, id) {
        (Some(Value::String(method)), Some(id)) if !id.is_null() => Some(Incoming::Request { id, method }),
        (Some(_), _) => Some(Incoming::Notification),
        (None, Some(id)) => {
            let outcome = match error {
                Some(e) if !e.is_null() => Err(McpError::Rpc {
                    message: e.get("message").and_then(Value::as_str).unwrap_or("").to_string(),
                    code: e.get("code").and_then(Value::as_i64),
                    data: e.get("data").filter(|d| !d.is_null()).cloned(),
                }),
                _ => Ok(result.unwrap_or_else(null)),
            };
            Some(Incoming::Response { id, outcome })
        }
        (None, None) => None,
    }
}

/// The messages of a body: a batch (an array) or one message.
pub fn parse_batch(text: &[u8]) -> Result<Vec<Incoming>, serde_json::Error> {
    let first = text.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        let items = serde_json::from_slice::<Vec<Box<RawValue>>>(text)?;
        return Ok(items.iter().filter_map(|m| parse(m.get().as_bytes())).collect());
    }
    let one = serde_json::from_slice::<Box<RawValue>>(text)?;
    Ok(parse(one.get().as_bytes()).into_iter().collect())
}

fn null() -> Box<RawValue> {
    RawValue::from_string("null".to_string()).expect("null is JSON")
}

/// A result read as JSON (every method's but a call's).
pub fn value(raw: &RawValue) -> Result<Value, McpError> {
    serde_json::from_str(raw.get()).map_err(|e| McpError::Transport(format!("invalid result: {}", e)))
}

/// True when `id` is the number `want`.
pub fn id_is(id: &Value, want: u64) -> bool {
    id.as_u64() == Some(want)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn written_as_the_go_sdk_writes() {
        let r = String::from_utf8(request(2, "tools/list", None)).unwrap();
        assert_eq!(r, r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
        let a = String::from_utf8(answer(&json!("s-1"), Ok(json!({})))).unwrap();
        assert_eq!(a, r#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#);
        let n = String::from_utf8(notification("notifications/initialized", json!({}))).unwrap();
        assert_eq!(n, r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}"#);
    }

    #[test]
    fn read() {
        match parse(br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"boom"}}"#) {
            Some(Incoming::Response { id, outcome: Err(McpError::Rpc { message: m, code, .. }) }) => {
                assert!(id_is(&id, 3) && m == "boom" && code == Some(-32603))
            }
            other => panic!("{:?}", other),
        }
        assert!(matches!(parse(br#"{"id":1,"method":"ping"}"#), Some(Incoming::Request { .. })));
        assert!(matches!(parse(br#"{"method":"notifications/message"}"#), Some(Incoming::Notification)));
        assert!(parse(b"[1]").is_none());
        // A result kept as written, a later member replacing an earlier one.
        match parse(br#"{"jsonrpc":"2.0","id":4,"result":{"a":1e400,"b":"\ud800"},"id":5}"#) {
            Some(Incoming::Response { id, outcome: Ok(r) }) => assert!(id_is(&id, 5) && r.get() == r#"{"a":1e400,"b":"\ud800"}"#),
            other => panic!("{:?}", other),
        }
        match parse(br#"{"jsonrpc":"2.0","id":6}"#) {
            Some(Incoming::Response { outcome: Ok(r), .. }) => assert_eq!(r.get(), "null"),
            other => panic!("{:?}", other),
        }
        assert_eq!(parse_batch(br#" [{"id":1,"result":{}},{"method":"x"}]"#).unwrap().len(), 2);
    }
}
