//! The store (C8.1): one JSON value under key `mcp` of table `state` in a
//! redb file, {state}/state.redb. The database is opened per operation so
//! that the harness's store commands can read it while the port runs: a
//! read opens it read-only (a shared lock, nothing written or synced), a
//! write read-write (an exclusive lock, the commit synced). An operation
//! that finds it locked tries again, bounded.

use redb::{Database, ReadOnlyDatabase, ReadableDatabase, TableDefinition};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const TABLE: TableDefinition<&str, &[u8]> = TableDefinition::new("state");
const KEY: &str = "mcp";
const LOCK_WAIT: Duration = Duration::from_secs(10);

fn file(state: &Path) -> PathBuf {
    state.join("state.redb")
}

/// Runs `open` until the database is not held by another process, or the
/// wait passes.
fn locked<T>(open: impl Fn() -> Result<T, redb::DatabaseError>) -> Result<T, redb::DatabaseError> {
    let start = Instant::now();
    loop {
        match open() {
            Err(redb::DatabaseError::DatabaseAlreadyOpen) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(Duration::from_millis(2));
            }
            r => return r,
        }
    }
}

/// The stored bytes; None when nothing is stored or the store cannot be
/// read (C8.4).
pub fn read(state: &Path) -> Option<Vec<u8>> {
    let path = file(state);
    if !path.exists() {
        return None;
    }
    match locked(|| ReadOnlyDatabase::open(&path)) {
        Ok(db) => get(&db),
        // A file left unclean (a writer killed) is repaired by a
        // read-write open.
        Err(redb::DatabaseError::DatabaseAlreadyOpen) => None,
        Err(_) => get(&locked(|| Database::create(&path)).ok()?),
    }
}

fn get(db: &impl ReadableDatabase) -> Option<Vec<u8>> {
    let tx = db.begin_read().ok()?;
    let table = tx.open_table(TABLE).ok()?;
    let v = table.get(KEY).ok()??;
    Some(v.value().to_vec())
}

/// Stores `bytes` whole, in one transaction.
pub fn write(state: &Path, bytes: &[u8]) -> Result<(), String> {
    let db = locked(|| Database::create(file(state))).map_err(|e| e.to_string())?;
    let tx = db.begin_write().map_err(|e| e.to_string())?;
    {
        let mut table = tx.open_table(TABLE).map_err(|e| e.to_string())?;
        table.insert(KEY, bytes).map_err(|e| e.to_string())?;
    }
    tx.commit().map_err(|e| e.to_string())
}
