// The stdio transport of a session (P2, P6, docs/rules.md): the server is
// started with its command and args (no shell), in its own process group,
// with the service's environment plus the configured env; messages are
// JSON lines (read as the SDK's ReadBuffer reads them, written by its
// serializeMessage). An answer to a tools/call (in the 2026-07-28 era, to
// a tools/list too) carries its result as the server wrote it
// (src/rawresult.ts).
//
// The SDK's StdioClientTransport is not used: it cannot start the server
// in its own process group (no `detached` option), it signals only the
// direct child on close, and its close waits are fixed at 2 s (P2's grace
// is scaled). Everything above the transport is the SDK's Client, but the
// server's requests in the 2026-07-28 era, answered here (the SDK drops
// them in that era).

import { ChildProcess, spawn } from "node:child_process";

import { deserializeMessage, serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";

import { serverRequestAnswer, withoutMeta } from "./era.js";
import { lookPath, notFoundText } from "./lookpath.js";
import { markResponses, requestKey } from "./rawresult.js";
import { trace } from "./trace.js";

// Every stdio server group started and not known to be over: whatever
// happens to the service, none outlives it (P2, "Shutdown").
const groups = new Set<number>();

/** killAllGroups ends every stdio server's process group at once. */
export function killAllGroups(): void {
  for (const pid of groups) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  groups.clear();
}

process.on("exit", killAllGroups);

/** StartError: the server could not be started; its text is shown as is. */
export class StartError extends Error {}

/** Lines splits the server's output into lines, as the SDK's ReadBuffer does. */
class Lines {
  private buffer?: Buffer;

  append(chunk: Buffer): void {
    const size = (this.buffer?.length ?? 0) + chunk.length;
    if (size > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
      this.buffer = undefined;
      throw new Error(`ReadBuffer exceeded maximum size of ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes`);
    }
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
  }

  /** next is the next whole line (without its "\n" or "\r\n"), null when none is. */
  next(): string | null {
    const index = this.buffer?.indexOf("\n") ?? -1;
    if (index === -1) return null;
    const line = this.buffer!.toString("utf8", 0, index).replace(/\r$/, "");
    this.buffer = this.buffer!.subarray(index + 1);
    return line;
  }
}

export interface StdioParams {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private readonly lines = new Lines();
  private readonly marked = new Map<string, string>(); // requests whose answer is marked, not answered: their method
  private readonly inflight = new Set<string>(); // requests sent, not answered (P2.4)
  private readonly idle: (() => void)[] = []; // close's wait for them
  private closed = false; // the SDK was told (stdout and the process ended)
  private readonly exit: Promise<void>; // the process ended
  private markExited!: () => void;
  /** Set once the handshake succeeded: close is then graceful (P2.2). */
  graceful = false;
  /** Set once the server was opened in the 2026-07-28 era (E3.1). */
  modern = false;
  private started?: Promise<void>;

  constructor(
    private readonly params: StdioParams,
    private readonly graceMs: () => number,
  ) {
    this.exit = new Promise((resolve) => (this.markExited = resolve));
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** start starts the server once: discover (src/discover.ts) starts it before the client does. */
  start(): Promise<void> {
    return (this.started ??= this.spawn());
  }

  private spawn(): Promise<void> {
    // P6: a command not found on PATH gives Go's exec text.
    const file = lookPath(this.params.command);
    if (file === undefined) return Promise.reject(new StartError(notFoundText(this.params.command)));
    return new Promise((resolve, reject) => {
      const t0 = performance.now();
      const child = spawn(file, this.params.args, {
        argv0: this.params.command,
        // P6: the service's environment plus the configured env.
        env: { ...process.env, ...this.params.env },
        stdio: ["pipe", "pipe", "inherit"],
        shell: false,
        // P2, P6: setsid, so the server leads its own process group and
        // the whole group (a launcher's grandchildren too) can be ended.
        detached: true,
      });
      this.child = child;
      trace(`spawn ${this.params.command}: ${(performance.now() - t0).toFixed(1)} ms`);
      let started = false;
      child.once("spawn", () => {
        started = true;
        if (child.pid !== undefined) groups.add(child.pid);
        resolve();
      });
      child.once("error", (err) => {
        if (!started) {
          this.markExited();
          this.finish();
          reject(new StartError(err.message));
        } else {
          this.onerror?.(err);
        }
      });
      child.once("exit", () => this.markExited());
      child.once("close", () => this.finish());
      child.stdin?.on("error", (err) => this.onerror?.(err));
      child.stdout?.on("error", (err) => this.onerror?.(err));
      child.stdout?.on("data", (chunk: Buffer) => {
        try {
          this.lines.append(chunk);
        } catch (err) {
          this.onerror?.(err as Error);
          return;
        }
        for (let line = this.lines.next(); line !== null; line = this.lines.next()) {
          let msg: JSONRPCMessage;
          try {
            msg = deserializeMessage(this.mark(line));
          } catch (err) {
            this.onerror?.(err as Error); // a line that is not a JSON-RPC message
            continue;
          }
          if ("id" in msg && !("method" in msg)) this.answered(requestKey(msg.id));
          const answer = this.modern ? serverRequestAnswer(msg) : undefined;
          if (answer) this.send(answer).catch((err) => this.onerror?.(err));
          else this.onmessage?.(msg);
        }
      });
    });
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  /** mark gives an answer to a tools/call (or tools/list) its result's text (src/rawresult.ts). */
  private mark(line: string): string {
    if (this.marked.size === 0) return line;
    const answered: string[] = [];
    const marked = markResponses(line, (key) => {
      const method = this.marked.get(key);
      if (method !== undefined) answered.push(key);
      return method;
    });
    for (const key of answered) this.marked.delete(key);
    return marked ?? line;
  }

  /** answered ends a request in flight; close's wait ends with the last. */
  private answered(key: string): void {
    this.inflight.delete(key);
    if (this.inflight.size === 0) for (const f of this.idle.splice(0)) f();
  }

  send(sent: JSONRPCMessage): Promise<void> {
    const message = withoutMeta(sent);
    if ("method" in message && "id" in message && (message.method === "tools/call" || (this.modern && message.method === "tools/list"))) {
      this.marked.set(requestKey(message.id), message.method);
    } else if ("method" in message && message.method === "notifications/cancelled") {
      const key = requestKey((message.params as { requestId?: unknown } | undefined)?.requestId);
      this.marked.delete(key);
      this.answered(key);
    }
    if ("method" in message && "id" in message) this.inflight.add(requestKey(message.id));
    const stdin = this.child?.stdin;
    if (!stdin || this.closed || stdin.destroyed || stdin.writableEnded) {
      return Promise.reject(new Error("Not connected"));
    }
    return new Promise((resolve, reject) => {
      stdin.write(serializeMessage(message), (err) => (err ? reject(err) : resolve()));
    });
  }

  /** kill ends the server's whole process group at once (P2). */
  kill(): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // the group is gone already
    }
    groups.delete(pid);
    if (this.child?.exitCode === null && this.child.signalCode === null) {
      try {
        this.child.kill("SIGKILL"); // not a group leader after all
      } catch {
        // gone
      }
    }
  }

  /**
   * close is P2's close of a connected server: its calls in flight end on
   * their own (P2.4), then its stdin is closed, all within the (scaled)
   * grace period, which is also its time to exit; then its process group
   * is ended. A
   * server whose initialize has not succeeded (a failed or cancelled
   * attempt) is ended at once (P2.3).
   */
  async close(): Promise<void> {
    if (!this.child) {
      this.markExited();
      this.finish();
      return;
    }
    if (!this.graceful) {
      this.kill();
      await this.exit;
      this.finish();
      return;
    }
    let t: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (t = setTimeout(resolve, this.graceMs())));
    const quiet = new Promise<void>((resolve) => (this.inflight.size === 0 ? resolve() : this.idle.push(resolve)));
    await Promise.race([quiet, this.exit, grace]);
    try {
      this.child.stdin?.end();
    } catch {
      // already closed
    }
    await Promise.race([this.exit, grace]);
    clearTimeout(t);
    this.kill(); // the group, even when the leader left on its own
    await this.exit;
    this.finish();
  }
}
