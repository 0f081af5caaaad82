//! The pool's deadlines (P2.2, P3, P10.2) under the harness's time scale
//! (T1.1), and the texts of a passed handshake deadline (P4).

use crate::mutant;
use std::sync::OnceLock;
use std::time::Duration;

/// MCPPARITY_TIME_SCALE, a number in (0, 1]; 1 when absent or invalid.
pub fn scale() -> f64 {
    static S: OnceLock<f64> = OnceLock::new();
    *S.get_or_init(|| {
        let v = std::env::var("MCPPARITY_TIME_SCALE").ok().and_then(|v| v.trim().parse::<f64>().ok());
        match v {
            Some(s) if s > 0.0 && s <= 1.0 && !mutant::on("RS-T1.1-scale-ignored") => s,
            _ => 1.0,
        }
    })
}

fn scaled(secs: f64) -> Duration {
    Duration::from_secs_f64(secs * scale())
}

/// P3.2: `npx` or `uvx` when the command's base name is a launcher.
pub fn launcher(command: &str) -> Option<&'static str> {
    let base = if mutant::on("RS-P3.2-backslash-separator") {
        command.rsplit(['/', '\\']).next().unwrap_or(command)
    } else {
        command.rsplit('/').next().unwrap_or(command)
    };
    let mut base = base.to_lowercase();
    if let Some(b) = base.strip_suffix(".exe") {
        base = b.to_string();
    }
    if !mutant::on("RS-P3.2-cmd-kept") {
        if let Some(b) = base.strip_suffix(".cmd") {
            base = b.to_string();
        }
    }
    match base.as_str() {
        "npx" => Some("npx"),
        "uvx" if !mutant::on("RS-P3.2-uvx-not-launcher") => Some("uvx"),
        _ => None,
    }
}

/// P3.2: 3 min for a launcher, 20 s otherwise, scaled.
pub fn handshake(command: &str) -> Duration {
    if mutant::on("RS-P3.1-unbounded") {
        return Duration::from_secs(3600);
    }
    match launcher(command) {
        Some(_) => scaled(180.0),
        None if mutant::on("RS-P3.2-default-30s") => scaled(30.0),
        None => scaled(20.0),
    }
}

/// P10.2: the bound of one call attempt.
pub fn call_bound() -> Duration {
    if mutant::on("RS-P10.2-unscaled-bound") {
        return Duration::from_secs(120);
    }
    scaled(120.0)
}

/// P2.2: the grace a closed stdio server has to exit.
pub fn close_grace() -> Duration {
    if mutant::on("RS-P2.2-no-grace") {
        return Duration::ZERO;
    }
    scaled(2.0)
}

/// S1.1: the grace of the stdio servers closed at shutdown, unscaled: 1 s
/// after their stdin's end and 1 s after SIGTERM fit in the harness's 5 s
/// before SIGKILL, and a server that ends on either has the time to.
pub fn shutdown_grace() -> Duration {
    Duration::from_secs(1)
}

/// P4.1, P4.2: the text of a deadline passed during `initialize`.
pub fn deadline_text(command: &str) -> String {
    match launcher(command) {
        Some(l) => format!(
            "délai dépassé — {} télécharge le paquet du serveur au premier lancement, ce qui peut être long ; clique « tester » pour réessayer (le paquet reste en cache), et vérifie que le conteneur atteint le registre (npm/PyPI)",
            l
        ),
        None if mutant::on("RS-P4.2-scaled-text") => {
            format!("délai dépassé — le serveur n'a pas répondu au handshake en {}s", (20.0 * scale()).round())
        }
        None => "délai dépassé — le serveur n'a pas répondu au handshake en 20s".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launchers() {
        for l in ["/usr/bin/NPX.EXE", "npx.cmd", "npx.cmd.exe", "UVX"] {
            assert!(launcher(l).is_some(), "{}", l);
        }
        for n in ["npx-wrapper", "npx.exe.cmd", "uv", "C:\\node\\npx.cmd", " npx"] {
            assert!(launcher(n).is_none(), "{}", n);
        }
    }
}
