//! One connection attempt (P3, P4, P5, E2): the transport opened, the
//! handshake (in the modern era `server/discover` and its fallback, E2.4)
//! and the first `tools/list` under the handshake deadline, and what was
//! opened closed at once when it fails or is cancelled (P2.1, P2.3).

use super::{time, Outcome, Ready};
use crate::config::Server;
use crate::era;
use crate::mcp::Session;
use crate::mcp::error::TIMEOUT_TEXT;
use crate::mutant;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::{timeout_at, Instant};
use tokio_util::sync::CancellationToken;

/// What a caller waiting for a cancelled attempt gets (P2.1).
pub const CANCELLED: &str = "session invalidée pendant la connexion";

pub async fn connect(cfg: &Server, cancel: &CancellationToken) -> Outcome {
    let end = Instant::now() + time::handshake(&cfg.command);
    if cancel.is_cancelled() {
        return Outcome::Failed(CANCELLED.into());
    }
    let session = match Session::open(cfg) {
        Ok(s) => Arc::new(s),
        Err(e) => return Outcome::Failed(e),
    };
    let init = tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(CANCELLED.to_string()),
        r = timeout_at(end, session.open_server(cfg)) => match r {
            Ok(r) => r,
            Err(_) if mutant::on("RS-P4.1-raw-deadline") => Err(format!("calling \"initialize\": {}", TIMEOUT_TEXT)),
            Err(_) if era::modern() && mutant::on("RS-E2.4-discover-raw-deadline") => {
                Err(format!("calling \"server/discover\": {}", TIMEOUT_TEXT))
            }
            Err(_) => Err(time::deadline_text(&cfg.command)),
        },
    };
    if let Err(e) = init {
        close_failed(&session).await;
        return Outcome::Failed(e);
    }
    let end = if mutant::on("RS-P3.1-list-unbounded") { end + Duration::from_secs(3600) } else { end };
    let listed = tokio::select! {
        biased;
        _ = cancel.cancelled() => None,
        r = timeout_at(end, session.list_tools()) => Some(match r {
            Ok(r) => r,
            Err(_) if mutant::on("RS-P4.3-worded-list-deadline") => Err(time::deadline_text(&cfg.command)),
            Err(_) => Err(TIMEOUT_TEXT.to_string()),
        }),
    };
    match listed {
        None => {
            // Invalidated after its initialize: closed as a connected
            // session is (P2.1, P2.2: stdin, the grace, then the group).
            session.close_now(time::close_grace()).await;
            Outcome::Failed(CANCELLED.into())
        }
        Some(Ok(tools)) => Outcome::Connected(Ready { session, tools, list_error: None }),
        Some(Err(_)) if mutant::on("RS-P16.4-list-failure-fails") => {
            close_failed(&session).await;
            Outcome::Failed("tools/list failed".into())
        }
        Some(Err(e)) => Outcome::Connected(Ready { session, tools: Vec::new(), list_error: Some(e) }),
    }
}

/// P2.3: a failed attempt is closed at once, without the grace.
async fn close_failed(session: &Session) {
    let grace = if mutant::on("RS-P2.3-graceful-failure") { time::close_grace() } else { Duration::ZERO };
    session.close_now(grace).await;
}
