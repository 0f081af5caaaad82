//! The store (C8.1): one JSON value under key `mcp` of table `state` in a
//! redb file, {state}/state.redb. The database is opened per operation so
//! that the harness's store commands can read it while the port runs;
//! an operation that finds it locked tries again, bounded.

use redb::{Database, TableDefinition};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const TABLE: TableDefinition<&str, &[u8]> = TableDefinition::new("state");
const KEY: &str = "mcp";
const LOCK_WAIT: Duration = Duration::from_secs(10);

fn file(state: &Path) -> PathBuf {
    state.join("state.redb")
}

/// Opens the database, waiting while another process holds it.
fn open(state: &Path) -> Result<Database, String> {
    let start = Instant::now();
    loop {
        match Database::create(file(state)) {
            Ok(db) => return Ok(db),
            Err(redb::DatabaseError::DatabaseAlreadyOpen) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// The stored bytes; None when nothing is stored or the store cannot be
/// read (C8.4).
pub fn read(state: &Path) -> Option<Vec<u8>> {
    if !file(state).exists() {
        return None;
    }
    let db = open(state).ok()?;
    let tx = db.begin_read().ok()?;
    let table = tx.open_table(TABLE).ok()?;
    let v = table.get(KEY).ok()??;
    Some(v.value().to_vec())
}

/// Stores `bytes` whole, in one transaction.
pub fn write(state: &Path, bytes: &[u8]) -> Result<(), String> {
    let db = open(state)?;
    let tx = db.begin_write().map_err(|e| e.to_string())?;
    {
        let mut table = tx.open_table(TABLE).map_err(|e| e.to_string())?;
        table.insert(KEY, bytes).map_err(|e| e.to_string())?;
    }
    tx.commit().map_err(|e| e.to_string())
}
