//! The HTTP contract (contract.md): the routes on hyper, the 1 MiB body
//! bound (H1.5), the errors (H1).

pub mod body;
pub mod reply;
pub mod routes;

use crate::mutant;
use crate::pool::Pool;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;
use std::sync::Arc;
use tokio::net::TcpListener;

/// The routes: path, method, handler.
const ROUTES: [(&str, Method); 10] = [
    ("/api/mcp", Method::GET),
    ("/api/mcp/catalog", Method::GET),
    ("/api/mcp/save", Method::POST),
    ("/api/mcp/delete", Method::POST),
    ("/api/mcp/toggle", Method::POST),
    ("/api/mcp/tool", Method::POST),
    ("/api/mcp/test", Method::POST),
    ("/internal/facade/v1/mcp/tools", Method::POST),
    ("/internal/facade/v1/mcp/call", Method::POST),
    ("/internal/facade/v1/mcp/prewarm", Method::POST),
];

/// Serves the contract until `stop` resolves.
pub async fn serve(listener: TcpListener, pool: Arc<Pool>, stop: impl std::future::Future<Output = ()>) {
    tokio::pin!(stop);
    loop {
        let (stream, _) = tokio::select! {
            _ = &mut stop => return,
            r = listener.accept() => match r {
                Ok(s) => s,
                Err(_) => {
                    // Out of descriptors, say: give the others time to end.
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let pool = pool.clone();
        tokio::spawn(async move {
            let svc = service_fn(move |req| {
                let pool = pool.clone();
                async move { Ok::<_, std::convert::Infallible>(handle(pool, req).await) }
            });
            let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), svc).await;
        });
    }
}

async fn handle(pool: Arc<Pool>, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let path = req.uri().path().to_string();
    let method = req.method().clone();
    let Some((_, want)) = ROUTES.iter().find(|(p, _)| *p == path) else {
        let status = if mutant::on("RS-H1.4-unknown-route-400") { 400 } else { 404 };
        return reply::error(status, &format!("route inconnue: {} {}", method, path));
    };
    if method != *want {
        if mutant::on("RS-H1.3-wrong-method-500") {
            return reply::error(500, &format!("méthode non autorisée: {}", method));
        }
        return reply::not_allowed(&method, want);
    }
    if method == Method::GET {
        return routes::get(&pool, &path).await;
    }
    let value = match body::read(req).await {
        Ok(v) => v,
        Err(resp) => return resp,
    };
    routes::post(&pool, &path, value).await
}
