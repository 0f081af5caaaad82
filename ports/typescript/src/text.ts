// Text helpers shared by the rules: white space as the rules trim it, runes
// (Unicode code points) and the byte order of UTF-8 names.

// White space trimmed by the rules (C2, C3, C4, P11, P15): the Unicode
// white space characters. Unlike String.prototype.trim, U+FEFF is not white
// space and U+0085 is.
const SPACE = new Set<number>([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680,
  0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

export function isSpace(cp: number): boolean {
  return SPACE.has(cp);
}

/** trimSpace removes white space from both ends of s. */
export function trimSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && SPACE.has(s.charCodeAt(start))) start++;
  while (end > start && SPACE.has(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

/** isBlank reports whether s is empty after trimming white space. */
export function isBlank(s: string): boolean {
  return trimSpace(s) === "";
}

/** runes splits s into Unicode code points. */
export function runes(s: string): string[] {
  return Array.from(s);
}

/**
 * cutRunes keeps the first max runes of s; ok is false when s was longer.
 */
export function cutRunes(s: string, max: number): { text: string; cut: boolean } {
  // Fast path: a string of at most max UTF-16 units has at most max runes.
  if (s.length <= max) return { text: s, cut: false };
  let n = 0;
  let i = 0;
  while (i < s.length) {
    if (n === max) return { text: s.slice(0, i), cut: true };
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && isLow(s.charCodeAt(i + 1)) ? 2 : 1;
    n++;
  }
  return { text: s, cut: false };
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** compareUTF8 orders strings by the bytes of their UTF-8 encoding (C8). */
export function compareUTF8(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** sortedNames returns the names in UTF-8 byte order (C8). */
export function sortedNames(names: Iterable<string>): string[] {
  return Array.from(names).sort(compareUTF8);
}
