//! Requests a server sends its client (P5.3, P6.2): `ping` and
//! `roots/list` are answered; any other method is not found.

use crate::mutant;
use serde_json::{json, Value};

/// The answer to the server's request `method`.
pub fn answer(method: &str) -> Result<Value, (i64, String)> {
    match method {
        "ping" if !mutant::on("RS-P6.2-ping-unanswered") => Ok(json!({})),
        "roots/list" if !mutant::on("RS-P5.3-roots-error") => Ok(json!({"roots": []})),
        _ => Err((-32601, "method not found".to_string())),
    }
}

/// True when the request must get no answer at all (a mutant).
pub fn silent(method: &str) -> bool {
    method == "ping" && mutant::on("RS-P6.2-ping-unanswered")
}
