// JSON parsed with its objects' entries in order, duplicated keys kept and
// numbers as written: what reading a value as a Go decoder does needs. The
// stored configuration (C8.3: the last duplicate wins, field names folded;
// C8.4: the servers decoded before the first that fails, in the stored
// order) and a tools/call result (P11.6: every member given twice checked,
// a size an integer as written, src/results.ts). JSON.parse keeps neither
// the order of integer-like keys, nor duplicates, nor how a number is
// written (1e3, 1.0).

export type JValue = null | boolean | JNumber | string | JValue[] | JObject;

/** JObject is a JSON object as written: its entries in order, duplicates included. */
export class JObject {
  constructor(readonly entries: [string, JValue][]) {}
}

/** JNumber is a JSON number as written (its literal). */
export class JNumber {
  constructor(readonly literal: string) {}

  /** value is the nearest float64, as JSON.parse reads it (±Infinity past its range). */
  get value(): number {
    return Number(this.literal);
  }
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

/** Spans is a JSON text's top value, one level deep, each part as written. */
export type Spans = { members: [string, string][] } | { elements: string[] } | { scalar: string };

/**
 * spans reads one JSON text one level deep: an object's members (each
 * value's text as written, duplicates included), an array's elements, or
 * the text of any other value; undefined when it is not valid JSON.
 */
export function spans(text: string): Spans | undefined {
  try {
    JSON.parse(text);
    return new Scanner(text).spans();
  } catch {
    return undefined;
  }
}

class Scanner {
  private i = 0;

  constructor(private readonly text: string) {}

  document(): JValue {
    const v = this.value();
    this.end();
    return v;
  }

  spans(): Spans {
    this.space();
    const c = this.text[this.i];
    if (c !== "{" && c !== "[") {
      const v = this.raw();
      this.end();
      return { scalar: v };
    }
    this.i++;
    const members: [string, string][] = [];
    const elements: string[] = [];
    this.space();
    if (this.text[this.i] !== (c === "{" ? "}" : "]")) {
      do {
        if (c === "[") {
          elements.push(this.raw());
          continue;
        }
        this.space();
        const key = JSON.parse(this.match(STRING)) as string;
        this.expect(":");
        members.push([key, this.raw()]);
      } while (this.more(c === "{" ? "}" : "]"));
    } else {
      this.i++;
    }
    this.end();
    return c === "{" ? { members } : { elements };
  }

  /** raw reads one value and gives its text as written. */
  private raw(): string {
    this.space();
    const start = this.i;
    this.value();
    return this.text.slice(start, this.i);
  }

  private end(): void {
    this.space();
    if (this.i !== this.text.length) throw new SyntaxError("trailing bytes");
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
      default: {
        const literal = this.match(LITERAL);
        if (literal === "null") return null;
        if (literal === "true" || literal === "false") return literal === "true";
        return new JNumber(literal);
      }
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
