//! Compiled-in mutants: a porting bug is switched on by naming it in
//! MCPPARITY_MUTANT (read once at start); unset, the port is the real one.
//! The catalogue is ports/rust/mutants.json.

use std::sync::OnceLock;

static ACTIVE: OnceLock<Option<String>> = OnceLock::new();

/// The environment variable naming the mutant to switch on.
pub const SWITCH: &str = "MCPPARITY_MUTANT";

/// True when the mutant `id` is the one switched on.
pub fn on(id: &str) -> bool {
    ACTIVE
        .get_or_init(|| std::env::var(SWITCH).ok().filter(|v| !v.is_empty()))
        .as_deref()
        == Some(id)
}
