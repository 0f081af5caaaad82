//! JSON-RPC 2.0 messages: what the client writes (fields in the go-sdk's
//! order) and what it reads.

use super::McpError;
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

/// A message the server sent.
#[derive(Debug)]
pub enum Incoming {
    Response { id: Value, outcome: Result<Value, McpError> },
    Request { id: Value, method: String },
    Notification,
}

/// Reads one message; None when it is not a JSON-RPC message.
pub fn parse(v: Value) -> Option<Incoming> {
    let Value::Object(mut m) = v else { return None };
    let id = m.remove("id");
    match (m.remove("method"), id) {
        (Some(Value::String(method)), Some(id)) if !id.is_null() => Some(Incoming::Request { id, method }),
        (Some(_), _) => Some(Incoming::Notification),
        (None, Some(id)) => {
            let outcome = match m.remove("error") {
                Some(e) if !e.is_null() => Err(McpError::Rpc(
                    e.get("message").and_then(Value::as_str).unwrap_or("").to_string(),
                )),
                _ => Ok(m.remove("result").unwrap_or(Value::Null)),
            };
            Some(Incoming::Response { id, outcome })
        }
        (None, None) => None,
    }
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
        match parse(json!({"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"boom"}})) {
            Some(Incoming::Response { id, outcome: Err(McpError::Rpc(m)) }) => assert!(id_is(&id, 3) && m == "boom"),
            other => panic!("{:?}", other),
        }
        assert!(matches!(parse(json!({"id":1,"method":"ping"})), Some(Incoming::Request { .. })));
        assert!(matches!(parse(json!({"method":"notifications/message"})), Some(Incoming::Notification)));
        assert!(parse(json!([1])).is_none());
    }
}
