//! mcpparity-rmcp-server: a small MCP server on the official Rust SDK, `rmcp`
//! 3.x, for mcpparity's recorder corpus.
//!
//! Three tools, in this order: `echo`, `fail` (a tool error, isError) and
//! `rpc_error` (a JSON-RPC error response, -32602).
//!
//! Usage (from this folder, after `cargo build --release --locked`):
//!
//! ```text
//! target/release/mcpparity-rmcp-server --stdio                  # newline-delimited JSON-RPC on stdin/stdout
//! target/release/mcpparity-rmcp-server --http 127.0.0.1:PORT    # Streamable HTTP at http://127.0.0.1:PORT/mcp
//! target/release/mcpparity-rmcp-server --http 127.0.0.1:PORT --json   # the same, stateless, JSON answers
//! ```
//!
//! Only MCP messages go to stdout; everything else goes to stderr.

use std::{convert::Infallible, net::SocketAddr, process::ExitCode, sync::Arc};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, combinators::BoxBody};
use hyper::{
    Request, Response, StatusCode, body::Incoming, server::conn::http1, service::service_fn,
};
use hyper_util::rt::TokioIo;
use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
        JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
        Tool,
    },
    service::RequestContext,
    transport::{
        io::stdio_pipes,
        streamable_http_server::{
            StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
        },
    },
};
use serde_json::{Value, json};

const SERVER_NAME: &str = "mcpparity-rmcp-server";
const SERVER_VERSION: &str = "1.0.0";
const ENDPOINT_PATH: &str = "/mcp";

/// The server. It keeps no state: the same value serves every session.
#[derive(Clone, Copy, Default)]
struct Corpus;

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(object) => Arc::new(object),
        _ => unreachable!("a tool's input schema is a JSON object"),
    }
}

/// The three tools, in the order tools/list gives them.
fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "echo",
            "Echoes its message.",
            schema(json!({
                "type": "object",
                "properties": {"message": {"type": "string"}},
                "required": ["message"],
            })),
        ),
        Tool::new(
            "fail",
            "Always fails: returns a tool error (isError).",
            schema(json!({"type": "object", "properties": {}})),
        ),
        Tool::new(
            "rpc_error",
            "Always fails: answers a JSON-RPC error.",
            schema(json!({"type": "object", "properties": {}})),
        ),
    ]
}

impl ServerHandler for Corpus {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(SERVER_NAME, SERVER_VERSION))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "echo" => {
                // A missing or non-string message is a JSON-RPC -32602 error,
                // as rmcp's own `Parameters<T>` extractor answers bad arguments.
                let message = request
                    .arguments
                    .as_ref()
                    .and_then(|arguments| arguments.get("message"))
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        ErrorData::invalid_params(
                            "invalid arguments for tool echo: message must be a string",
                            None,
                        )
                    })?;
                Ok(CallToolResult::success(vec![ContentBlock::text(message)]).into())
            }
            "fail" => Ok(CallToolResult::error(vec![ContentBlock::text(
                "the tool failed on purpose",
            )])
            .into()),
            // rmcp writes an Err from call_tool as the JSON-RPC error of the
            // request, with its code and message.
            "rpc_error" => Err(ErrorData::invalid_params(
                "rpc_error failed on purpose",
                None,
            )),
            // The same answer as rmcp's ToolRouter gives for an unknown tool.
            _ => Err(ErrorData::invalid_params("tool not found", None)),
        }
    }
}

type Body = BoxBody<Bytes, Infallible>;

async fn serve_stdio() -> Result<(), Box<dyn std::error::Error>> {
    let running = Corpus.serve(stdio_pipes()).await?;
    tokio::select! {
        // Ends when stdin ends (the client closed it) or the service stops.
        quit = running.waiting() => { quit?; }
        _ = shutdown_signal() => {}
    }
    Ok(())
}

async fn serve_http(addr: SocketAddr, json: bool) -> Result<(), Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    // The SDK's defaults: a session per client (Mcp-Session-Id issued at
    // initialize), answers as text/event-stream, Host checked against
    // localhost / 127.0.0.1 / ::1. With json: no sessions and
    // application/json answers (rmcp offers JSON answers only without
    // sessions).
    let mut config = StreamableHttpServerConfig::default();
    if json {
        config.legacy_session_mode = false;
        config.json_response = true;
    }
    let cancel = config.cancellation_token.clone();
    let service: StreamableHttpService<Corpus, LocalSessionManager> =
        StreamableHttpService::new(|| Ok(Corpus), Default::default(), config);
    eprintln!(
        "{SERVER_NAME}: listening on http://{}{ENDPOINT_PATH}",
        listener.local_addr()?
    );

    let mut connections = tokio::task::JoinSet::new();
    let shutdown = shutdown_signal();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, _) = match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => { eprintln!("{SERVER_NAME}: accept: {error}"); continue; }
                };
                let service = service.clone();
                let handler = service_fn(move |request: Request<Incoming>| {
                    let service = service.clone();
                    async move {
                        let response: Response<Body> = if request.uri().path() == ENDPOINT_PATH {
                            service.handle(request).await
                        } else {
                            let mut response = Response::new(Empty::new().boxed());
                            *response.status_mut() = StatusCode::NOT_FOUND;
                            response
                        };
                        Ok::<_, Infallible>(response)
                    }
                });
                connections.spawn(async move {
                    let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), handler).await;
                });
            }
            _ = &mut shutdown => break,
        }
    }
    // Ends every session and its SSE streams; then the connections go.
    cancel.cancel();
    connections.abort_all();
    Ok(())
}

async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: {SERVER_NAME} --stdio | --http HOST:PORT [--json]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let result = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["--stdio"] => runtime.block_on(serve_stdio()),
        ["--http", addr] | ["--http", addr, "--json"] => match addr.parse::<SocketAddr>() {
            Ok(socket) => runtime.block_on(serve_http(socket, args.len() == 3)),
            Err(_) => return usage(),
        },
        _ => return usage(),
    };
    // Do not wait for a blocked stdin read (see rmcp::transport::io::stdio).
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{SERVER_NAME}: {error}");
            ExitCode::FAILURE
        }
    }
}
