//! The pool in Rust behind the HTTP contract of docs/contract.md, with its
//! own MCP client (src/mcp). `--listen ADDR --state DIR --workspace DIR
//! --catalog FILE` serves; `store seed|dump --state DIR` are the store
//! commands of docs/targets.md, section 2. MCPPARITY_ERA picks the
//! protocol the client speaks (src/era.rs).

mod api;
mod catalog;
mod config;
mod era;
mod gojson;
mod lookpath;
mod mcp;
mod mutant;
mod pool;
mod store;
mod text;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: mcpparity-rust --listen ADDR --state DIR --workspace DIR --catalog FILE\n       mcpparity-rust store seed|dump --state DIR";

fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = if args.first().map(String::as_str) == Some("store") {
        store_command(&args[1..])
    } else {
        serve(&args)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcpparity-rust: {}", e);
            ExitCode::from(2)
        }
    }
}

/// `store seed` stores stdin as given; `store dump` prints what is stored,
/// `null` when nothing is.
fn store_command(args: &[String]) -> Result<(), String> {
    let state = PathBuf::from(flag(args, "--state").ok_or(USAGE)?);
    match args.first().map(String::as_str) {
        Some("seed") => {
            let mut input = Vec::new();
            std::io::stdin().read_to_end(&mut input).map_err(|e| e.to_string())?;
            std::fs::create_dir_all(&state).map_err(|e| e.to_string())?;
            store::write(&state, &input)
        }
        Some("dump") => {
            let bytes = store::read(&state).unwrap_or_else(|| b"null".to_vec());
            let mut out = std::io::stdout();
            out.write_all(&bytes).and_then(|_| out.write_all(b"\n")).map_err(|e| e.to_string())
        }
        _ => Err(USAGE.into()),
    }
}

fn serve(args: &[String]) -> Result<(), String> {
    let need = |n: &str| flag(args, n).ok_or_else(|| format!("{} missing\n{}", n, USAGE));
    let addr = need("--listen")?;
    let state = PathBuf::from(need("--state")?);
    let workspace = PathBuf::from(need("--workspace")?);
    let catalog = PathBuf::from(need("--catalog")?);
    era::init()?; // E1.1: an unknown era stops the service before it listens
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&addr).await.map_err(|e| format!("listen {}: {}", addr, e))?;
        let pool = pool::Pool::new(state, workspace, catalog);
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).map_err(|e| e.to_string())?;
        let stop = async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        };
        api::serve(listener, pool.clone(), stop).await;
        if !mutant::on("RS-S1.1-no-shutdown") {
            pool.shutdown().await;
        }
        Ok::<(), String>(())
    })?;
    rt.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(())
}
