// JSON parsed with its objects' entries in order, duplicated keys kept:
// what reading a stored configuration as Go's encoding/json does needs
// (C8.3: the last duplicate wins, field names folded; C8.4: the servers
// decoded before the first that fails, in the stored order). JSON.parse
// keeps neither the order of integer-like keys nor duplicates.

export type JValue = null | boolean | number | string | JValue[] | JObject;

/** JObject is a JSON object as written: its entries in order, duplicates included. */
export class JObject {
  constructor(readonly entries: [string, JValue][]) {}
}

const STRING = /"(?:[^"\\]|\\.)*"/y;
const LITERAL = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null/y;

/**
 * parseOrdered reads one JSON text; undefined when it is not valid JSON
 * (trailing bytes after the value included).
 */
export function parseOrdered(text: string): JValue | undefined {
  try {
    JSON.parse(text); // the grammar: the scan below trusts it
    return new Scanner(text).document();
  } catch {
    return undefined; // invalid, or nested past the stack
  }
}

class Scanner {
  private i = 0;

  constructor(private readonly text: string) {}

  document(): JValue {
    const v = this.value();
    this.space();
    if (this.i !== this.text.length) throw new SyntaxError("trailing bytes");
    return v;
  }

  private space(): void {
    while (this.i < this.text.length && " \t\n\r".includes(this.text[this.i])) this.i++;
  }

  private match(re: RegExp): string {
    re.lastIndex = this.i;
    const m = re.exec(this.text);
    if (!m) throw new SyntaxError(`unexpected input at ${this.i}`);
    this.i += m[0].length;
    return m[0];
  }

  private expect(c: string): void {
    this.space();
    if (this.text[this.i] !== c) throw new SyntaxError(`want ${c} at ${this.i}`);
    this.i++;
  }

  /** more reads the "," before another element, or the closing bracket. */
  private more(close: string): boolean {
    this.space();
    const c = this.text[this.i++];
    if (c === ",") return true;
    if (c === close) return false;
    throw new SyntaxError(`want , or ${close} at ${this.i - 1}`);
  }

  private value(): JValue {
    this.space();
    switch (this.text[this.i]) {
      case "{":
        return this.object();
      case "[":
        return this.array();
      case '"':
        return JSON.parse(this.match(STRING)) as string;
      default:
        return JSON.parse(this.match(LITERAL)) as JValue;
    }
  }

  private object(): JObject {
    this.i++;
    const entries: [string, JValue][] = [];
    this.space();
    if (this.text[this.i] === "}") {
      this.i++;
      return new JObject(entries);
    }
    do {
      this.space();
      const key = JSON.parse(this.match(STRING)) as string;
      this.expect(":");
      entries.push([key, this.value()]);
    } while (this.more("}"));
    return new JObject(entries);
  }

  private array(): JValue[] {
    this.i++;
    const out: JValue[] = [];
    this.space();
    if (this.text[this.i] === "]") {
      this.i++;
      return out;
    }
    do out.push(this.value());
    while (this.more("]"));
    return out;
  }
}
