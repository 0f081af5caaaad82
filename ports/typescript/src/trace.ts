// MCPPARITY_TS_TRACE=1 logs the handshakes (and the spawns) with their
// durations to stderr: the harness shows a target's logs beside its
// differences.

const TRACE = process.env.MCPPARITY_TS_TRACE === "1";

export function trace(line: string): void {
  if (TRACE) console.error(`mcpparity-ts: ${line}`);
}
