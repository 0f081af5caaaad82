// Deadlines of the pool ("Time", docs/rules.md): each is multiplied by the
// time scale MCPPARITY_TIME_SCALE, a decimal number in (0, 1] (absent: 1).

export const TIME_SCALE_VAR = "MCPPARITY_TIME_SCALE";

/** parseTimeScale reads the scale; an invalid value is an error. */
export function parseTimeScale(v: string | undefined): number {
  if (v === undefined || v.trim() === "") return 1;
  const s = v.trim();
  const n = Number(s);
  if (!/^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$|^[0-9]+\.$/.test(s) || !(n > 0 && n <= 1)) {
    throw new Error(`${TIME_SCALE_VAR}=${JSON.stringify(v)}: want a decimal number in (0, 1]`);
  }
  return n;
}

export class Deadlines {
  constructor(readonly scale: number) {}

  private ms(seconds: number): number {
    return Math.max(1, Math.round(seconds * 1000 * this.scale));
  }

  /** P3: 3 min for a launcher (npx, uvx), 20 s otherwise. */
  handshake(launcher: boolean): number {
    return this.ms(launcher ? 180 : 20);
  }

  /** P10.2: each call attempt. */
  call(): number {
    return this.ms(120);
  }

  /** P2: the grace given to a closed stdio server before its group is ended. */
  grace(): number {
    return this.ms(2);
  }
}

/** Timer is a deadline that can be waited for and cancelled. */
export function after(ms: number): { promise: Promise<void>; cancel: () => void } {
  let t: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => {
    t = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(t) };
}
