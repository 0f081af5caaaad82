//! The errors of a request: a JSON-RPC error answer (its message, as the
//! go-sdk words it), a transport failure (the Rust stack's own text), or a
//! result that cannot be read (the reader's own text, P11.6).

use serde_json::Value;
use std::fmt;

#[derive(Clone, Debug)]
pub enum McpError {
    /// A JSON-RPC error answer: its message, worded without its code
    /// (P10.5); the code and data are read by server/discover (E2.3).
    Rpc { message: String, code: Option<i64>, data: Option<Value> },
    /// A transport failure, in the words of this client's stack.
    Transport(String),
    /// The request's deadline passed.
    Timeout,
    /// A result the go-sdk could not read (P11.6).
    Unreadable(String),
}

/// tokio's text for a passed deadline.
pub const TIMEOUT_TEXT: &str = "deadline has elapsed";

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpError::Rpc { message: m, .. } | McpError::Transport(m) | McpError::Unreadable(m) => f.write_str(m),
            McpError::Timeout => f.write_str(TIMEOUT_TEXT),
        }
    }
}

/// P10.5: `calling "<method>": <error>`.
pub fn calling(method: &str, e: &McpError) -> String {
    format!("calling \"{}\": {}", method, e)
}
