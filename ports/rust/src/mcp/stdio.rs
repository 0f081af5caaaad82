//! The stdio transport: the server as a child process in a process group
//! of its own (P6.4), one JSON-RPC message a line on its stdin and stdout.
//! Closing it closes its stdin, waits a grace for it to exit, then kills
//! the whole group (P2.2); an abort kills the group at once (P2.1, P2.3).

use super::jsonrpc::{self, Incoming};
use super::{server_requests, McpError};
use crate::config::Server;
use crate::lookpath;
use crate::mutant;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::{oneshot, watch};

type Waiter = oneshot::Sender<Result<Box<RawValue>, McpError>>;

/// The requests waiting for their answer, and why the line ended.
#[derive(Default)]
struct Pending {
    waiting: HashMap<u64, Waiter>,
    ended: Option<String>,
}

type Stdin = Arc<tokio::sync::Mutex<Option<ChildStdin>>>;

pub struct StdioConn {
    stdin: Stdin,
    pending: Arc<Mutex<Pending>>,
    pgid: i32,
    exited: watch::Receiver<bool>,
}

const ENDED: &str = "stdio: the server closed its output";

impl StdioConn {
    /// Starts the server: its command found on the service's PATH, its
    /// args, the service's environment plus its own (P6.1, P6.3).
    pub fn spawn(cfg: &Server) -> Result<Arc<StdioConn>, String> {
        let path = lookpath::look_path(&cfg.command)?;
        let mut cmd = Command::new(path);
        cmd.arg0(&cfg.command).args(&cfg.args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        if !mutant::on("RS-P6.1-env-dropped") {
            cmd.envs(&cfg.env);
        }
        if !mutant::on("RS-P6.4-same-group") {
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().map_err(|e| format!("fork/exec {}: {}", cfg.command, e))?;
        let pgid = child.id().map(|p| p as i32).unwrap_or(0);
        let stdin: Stdin = Arc::new(tokio::sync::Mutex::new(child.stdin.take()));
        let pending = Arc::new(Mutex::new(Pending::default()));
        let (tx, exited) = watch::channel(false);
        if let Some(out) = child.stdout.take() {
            tokio::spawn(read_lines(out, stdin.clone(), pending.clone()));
        }
        tokio::spawn(async move {
            let _ = child.wait().await;
            let _ = tx.send(true);
        });
        Ok(Arc::new(StdioConn { stdin, pending, pgid, exited }))
    }

    async fn write(&self, line: Vec<u8>) -> Result<(), McpError> {
        write_line(&self.stdin, line).await
    }

    /// Sends a request and waits for its answer.
    pub async fn request(&self, id: u64, body: Vec<u8>) -> Result<Box<RawValue>, McpError> {
        let (tx, rx) = oneshot::channel();
        {
            let mut p = self.pending.lock().unwrap();
            if let Some(why) = &p.ended {
                return Err(McpError::Transport(why.clone()));
            }
            p.waiting.insert(id, tx);
        }
        if let Err(e) = self.write(body).await {
            self.pending.lock().unwrap().waiting.remove(&id);
            return Err(e);
        }
        rx.await.unwrap_or_else(|_| Err(McpError::Transport(ENDED.into())))
    }

    /// Forgets a request the caller stopped waiting for.
    pub fn forget(&self, id: u64) {
        self.pending.lock().unwrap().waiting.remove(&id);
    }

    pub async fn notify(&self, body: Vec<u8>) -> Result<(), McpError> {
        self.write(body).await
    }

    /// P2.2: stdin closed, a grace for the server to exit, then the group
    /// killed, whether its leader exited or not (no SIGTERM first: a server
    /// deaf to it would get the grace twice). Without grace (P2.1, P2.3)
    /// the group is killed first: the server gets no chance to act on the
    /// end of its input.
    pub async fn close(&self, grace: Duration) {
        if grace.is_zero() {
            self.kill();
        }
        // A writer blocked on a server that reads nothing holds the lock:
        // the grace bounds the wait for it too.
        if let Ok(mut stdin) = tokio::time::timeout(grace, self.stdin.lock()).await {
            stdin.take();
        }
        self.exits_within(grace).await;
        self.kill();
    }

    async fn exits_within(&self, grace: Duration) -> bool {
        let mut exited = self.exited.clone();
        let ended = tokio::time::timeout(grace, exited.wait_for(|e| *e)).await.is_ok();
        ended
    }

    /// Kills the server's whole process group.
    pub fn kill(&self) {
        self.signal(libc::SIGKILL);
    }

    fn signal(&self, sig: libc::c_int) {
        if self.pgid > 0 {
            let target = if mutant::on("RS-P2.2-leader-only") { self.pgid } else { -self.pgid };
            unsafe {
                libc::kill(target, sig);
            }
        }
    }
}

impl Drop for StdioConn {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn write_line(stdin: &Stdin, mut line: Vec<u8>) -> Result<(), McpError> {
    line.push(b'\n');
    let mut guard = stdin.lock().await;
    let Some(w) = guard.as_mut() else {
        return Err(McpError::Transport("stdio: the connection is closed".into()));
    };
    let res = async {
        w.write_all(&line).await?;
        w.flush().await
    }
    .await;
    res.map_err(|e| McpError::Transport(format!("stdio: write: {}", e)))
}

/// Reads the server's lines: answers go to their waiters, server requests
/// are answered, the rest is ignored. At the end every waiter fails.
async fn read_lines(out: ChildStdout, stdin: Stdin, pending: Arc<Mutex<Pending>>) {
    let mut r = BufReader::new(out);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match r.read_until(b'\n', &mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        match jsonrpc::parse(trim_line(&buf)) {
            Some(Incoming::Response { id, outcome }) => {
                let w = id.as_u64().and_then(|id| pending.lock().unwrap().waiting.remove(&id));
                if let Some(w) = w {
                    let _ = w.send(outcome);
                }
            }
            Some(Incoming::Request { id, method, .. }) if !server_requests::silent(&method) => {
                let line = jsonrpc::answer(&id, server_requests::answer(&method));
                let _ = write_line(&stdin, line).await;
            }
            _ => {}
        }
    }
    let mut p = pending.lock().unwrap();
    p.ended = Some(ENDED.into());
    for (_, w) in p.waiting.drain() {
        let _ = w.send(Err(McpError::Transport(ENDED.into())));
    }
}

fn trim_line(b: &[u8]) -> &[u8] {
    let mut end = b.len();
    while end > 0 && (b[end - 1] == b'\n' || b[end - 1] == b'\r') {
        end -= 1;
    }
    &b[..end]
}
