//! Finding a command on PATH as Go's exec.LookPath does (P6.3, P17.4),
//! with Go's error texts.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

fn executable(p: &std::path::Path) -> Result<(), String> {
    let md = std::fs::metadata(p).map_err(|e| format!("stat {}: {}", p.display(), io_text(&e)))?;
    if md.is_dir() || md.permissions().mode() & 0o111 == 0 {
        return Err("permission denied".into());
    }
    Ok(())
}

fn io_text(e: &std::io::Error) -> &'static str {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory",
        std::io::ErrorKind::PermissionDenied => "permission denied",
        _ => "not a file",
    }
}

/// The path of `file` on `path` (the service's PATH), or Go's error text.
pub fn look_path_in(file: &str, path: &str) -> Result<PathBuf, String> {
    if file.contains('/') {
        return executable(std::path::Path::new(file))
            .map(|_| PathBuf::from(file))
            .map_err(|e| format!("exec: {}: {}", quote(file), e));
    }
    for dir in path.split(':') {
        let dir = if dir.is_empty() { "." } else { dir };
        let cand = std::path::Path::new(dir).join(file);
        if !file.is_empty() && executable(&cand).is_ok() {
            if !cand.is_absolute() {
                continue;
            }
            return Ok(cand);
        }
    }
    Err(format!("exec: {}: executable file not found in $PATH", quote(file)))
}

/// The path of `file` on the service's PATH.
pub fn look_path(file: &str) -> Result<PathBuf, String> {
    look_path_in(file, &std::env::var("PATH").unwrap_or_default())
}

/// Go's %q of a string (enough for command names).
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
