// The stdio transport of a session (P2, P6, docs/rules.md): the server is
// started with its command and args (no shell), in its own process group,
// with the service's environment plus the configured env; messages are
// JSON lines (the SDK's ReadBuffer and serializeMessage).
//
// The SDK's StdioClientTransport is not used: it cannot start the server
// in its own process group (no `detached` option), it signals only the
// direct child on close, and its close waits are fixed at 2 s (P2's grace
// is scaled). Everything above the transport is the SDK's Client.

import { ChildProcess, spawn } from "node:child_process";

import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

import { lookPath, notFoundText } from "./lookpath.js";
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
  private readonly buffer = new ReadBuffer();
  private closed = false; // the SDK was told (stdout and the process ended)
  private readonly exit: Promise<void>; // the process ended
  private markExited!: () => void;
  /** Set once initialize succeeded: close is then graceful (P2.2). */
  graceful = false;

  constructor(
    private readonly params: StdioParams,
    private readonly graceMs: () => number,
  ) {
    this.exit = new Promise((resolve) => (this.markExited = resolve));
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
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
        this.buffer.append(chunk);
        for (;;) {
          let msg: JSONRPCMessage | null;
          try {
            msg = this.buffer.readMessage();
          } catch (err) {
            this.onerror?.(err as Error); // a line that is not a JSON-RPC message
            continue;
          }
          if (msg === null) break;
          this.onmessage?.(msg);
        }
      });
    });
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
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
   * close is P2's close of a connected server: its stdin is closed, it gets
   * the (scaled) grace period to exit, then its process group is ended. A
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
    try {
      this.child.stdin?.end();
    } catch {
      // already closed
    }
    let t: NodeJS.Timeout | undefined;
    await Promise.race([this.exit, new Promise<void>((resolve) => (t = setTimeout(resolve, this.graceMs())))]);
    clearTimeout(t);
    this.kill(); // the group, even when the leader left on its own
    await this.exit;
    this.finish();
  }
}
