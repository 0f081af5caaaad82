//! E1.1: the protocol era a run speaks to its servers, read once at start
//! from MCPPARITY_ERA: `2025-11-25` (or unset, or empty) is the handshake
//! era, `2026-07-28` the revision without handshake (E2, E3); any other
//! value stops the service before it listens.

use crate::mutant;
use std::sync::OnceLock;

/// The environment variable naming the era.
pub const VAR: &str = "MCPPARITY_ERA";
/// The handshake era's version, the default.
pub const HANDSHAKE: &str = "2025-11-25";
/// The first version of the revision without handshake.
pub const MODERN: &str = "2026-07-28";

static IS_MODERN: OnceLock<bool> = OnceLock::new();

/// Reads the era: true for the modern one. Surrounding white space is
/// ignored, as the reference's ParseEra ignores it.
pub fn parse(value: &str) -> Result<bool, String> {
    let v = value.trim();
    if mutant::on("RS-E1.1-any-value-modern") {
        return Ok(!v.is_empty());
    }
    match v {
        "" | HANDSHAKE => Ok(false),
        MODERN => Ok(!mutant::on("RS-E1.1-era-ignored")),
        _ => Err(format!("{}={:?}: want {} (the default) or {}", VAR, value, HANDSHAKE, MODERN)),
    }
}

/// Reads MCPPARITY_ERA once; the error names the variable and its value.
pub fn init() -> Result<(), String> {
    let raw = std::env::var_os(VAR).map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
    let modern = parse(&raw)?;
    let _ = IS_MODERN.set(modern);
    Ok(())
}

/// True in the modern era (E2, E3).
pub fn modern() -> bool {
    *IS_MODERN.get().unwrap_or(&false)
}

/// True when `version` is of the revision without handshake (dates
/// compare as strings, as the go-sdk compares them).
pub fn is_modern_version(version: &str) -> bool {
    version >= MODERN
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        assert_eq!(parse(""), Ok(false));
        assert_eq!(parse("2025-11-25"), Ok(false));
        assert_eq!(parse(" 2026-07-28\n"), Ok(true));
        let e = parse("2026-07-29").unwrap_err();
        assert!(e.contains("MCPPARITY_ERA") && e.contains("2026-07-29"), "{}", e);
        assert!(is_modern_version("2026-07-28") && !is_modern_version("2025-11-25"));
    }
}
