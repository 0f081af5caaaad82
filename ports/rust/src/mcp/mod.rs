//! The MCP client, written for this port: JSON-RPC 2.0 framing
//! (`jsonrpc`), server requests (`server_requests`), the SSE parser
//! (`sse`), the two transports (`stdio`, `http`), the session that runs
//! the handshake and the calls over either (`session`), and the reading
//! of a call's result as the go-sdk reads it (`result`).

pub mod error;
pub mod http;
pub mod jsonrpc;
pub mod result;
pub mod server_requests;
pub mod session;
pub mod sse;
pub mod stdio;

pub use error::McpError;
pub use session::Session;
