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

/// Go's %q of a string: what Go's strconv.IsPrint keeps is written as it
/// is, the rest escaped as Go escapes it (\xHH below U+0020 and for DEL,
/// \uHHHH, \UHHHHHHHH beyond the BMP).
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if go_printable(c) => out.push(c),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Go's unicode.IsPrint, without its tables: the ASCII space is printable,
/// other spaces, controls, format characters, surrogates, private use and
/// non-characters are not (unassigned code points are taken as printable).
fn go_printable(c: char) -> bool {
    let u = c as u32;
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let format = matches!(u, 0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x890..=0x891 | 0x8e2 | 0x180e
        | 0x200b..=0x200f | 0x202a..=0x202e | 0x2060..=0x2064 | 0x2066..=0x206f | 0xfeff | 0xfff9..=0xfffb
        | 0x110bd | 0x110cd | 0x13430..=0x1343f | 0x1bca0..=0x1bca3 | 0x1d173..=0x1d17a | 0xe0001 | 0xe0020..=0xe007f);
    let private = matches!(u, 0xe000..=0xf8ff | 0xf0000..=0xffffd | 0x100000..=0x10fffd);
    let nonchar = (0xfdd0..=0xfdef).contains(&u) || u & 0xfffe == 0xfffe;
    !(format || private || nonchar)
}
