// Finding commands on PATH, as P6 (the stdio command) and P17 (runtimeOk)
// ask: an executable regular file in one of the PATH folders.

import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/** goQuote quotes s as a double-quoted string with Go's escapes (strconv.Quote). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\x07":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "\v":
        out += "\\v";
        continue;
    }
    if (cp >= 0xd800 && cp <= 0xdfff) {
      out += "\\ufffd"; // not valid UTF-8 text
    } else if (cp < 0x20 || cp === 0x7f) {
      out += "\\x" + cp.toString(16).padStart(2, "0");
    } else if (/[\p{L}\p{M}\p{N}\p{P}\p{S}\u0020]/u.test(ch)) {
      out += ch; // printable (Go's strconv.IsPrint)
    } else if (cp < 0x10000) {
      out += "\\u" + cp.toString(16).padStart(4, "0");
    } else {
      out += "\\U" + cp.toString(16).padStart(8, "0");
    }
  }
  return out + '"';
}

function executable(path: string): boolean {
  try {
    if (statSync(path).isDirectory()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * lookPath finds name the way the service starts a command: a name with a
 * slash is used as is; otherwise the folders of PATH are searched.
 */
export function lookPath(name: string, path: string | undefined = process.env.PATH): string | undefined {
  if (name.includes("/")) return name;
  for (const dir of (path ?? "").split(delimiter)) {
    const p = join(dir === "" ? "." : dir, name);
    if (executable(p)) return p;
  }
  return undefined;
}

/** notFoundText is P6's text for a command not found on PATH. */
export function notFoundText(command: string): string {
  return `exec: ${goQuote(command)}: executable file not found in $PATH`;
}
