// The session pool (P1, P2, P7, docs/rules.md): one attempt per server,
// published before it connects and kept, failed or not, until the server
// is invalidated; the registry of the tools of connected sessions; and
// invalidation, which cancels an attempt in flight or closes a session in
// the background.

import { ServerConfig } from "./config.js";
import { INVALIDATED, Outcome, Session, closeNow, open } from "./connect.js";
import { Era } from "./era.js";
import { exposedName } from "./rules.js";
import { Deadlines } from "./time.js";

export { trace } from "./trace.js";

/** Attempt is one connection attempt of a server and, once settled, its outcome. */
export interface Attempt extends Outcome {
  settled: boolean;
  done: Promise<void>;
  cancel: AbortController;
}

/** ToolRef is what an exposed name reaches (P7.2). */
export interface ToolRef {
  server: string;
  tool: string;
}

/** PoolClosed: the service is stopping. */
export class PoolClosed extends Error {}

export class Pool {
  private readonly attempts = new Map<string, Attempt>();
  private readonly registry = new Map<string, ToolRef>();
  private readonly closings = new Set<Promise<void>>();
  private closing = false;

  constructor(
    readonly deadlines: Deadlines,
    readonly era: Era,
  ) {}

  /**
   * attempt returns the server's attempt once it has ended, starting one
   * when there is none (P1.2: concurrent callers share it). A failed one is
   * returned as is: it is not tried again until an invalidation (P1.3).
   */
  async attempt(name: string, cfg: ServerConfig): Promise<Attempt> {
    let a = this.attempts.get(name);
    if (!a) {
      if (this.closing) throw new PoolClosed("the service is stopping");
      a = this.start(name, cfg);
    }
    await a.done;
    return a;
  }

  private start(name: string, cfg: ServerConfig): Attempt {
    const cancel = new AbortController();
    const a: Attempt = { settled: false, done: Promise.resolve(), cancel };
    this.attempts.set(name, a); // P1.2: published before connecting
    a.done = open(cfg, cancel.signal, this.deadlines, this.era).then((o) => this.settle(name, a, o));
    return a;
  }

  private async settle(name: string, a: Attempt, o: Outcome): Promise<void> {
    if (this.attempts.get(name) !== a) {
      // P2.1: invalidated meanwhile: never published, closed at once.
      if (o.session) await closeNow(o.session);
      o = { error: INVALIDATED };
    } else if (o.tools) {
      this.publish(name, o.tools.map((t) => t.name));
    }
    Object.assign(a, o, { settled: true });
  }

  /** publish puts a server's tools, hidden ones included, in the registry (P7.2). */
  private publish(server: string, tools: string[]): void {
    this.unpublish(server);
    for (const tool of tools) this.registry.set(exposedName(server, tool), { server, tool });
  }

  private unpublish(server: string): void {
    for (const [exposed, ref] of this.registry) {
      if (ref.server === server) this.registry.delete(exposed);
    }
  }

  /** lookup resolves an exposed name through the registry alone (P7.3). */
  lookup(exposed: string): ToolRef | undefined {
    return this.registry.get(exposed);
  }

  /** connected is the server's session as the pool holds it now (P10.1). */
  connected(name: string): Session | undefined {
    const a = this.attempts.get(name);
    return a?.settled ? a.session : undefined;
  }

  /** promptCounts: every connected server with its count of tools, hidden ones included (P14.1). */
  promptCounts(): [string, number][] {
    const out: [string, number][] = [];
    for (const [name, a] of this.attempts) {
      if (a.settled && a.session && a.tools) out.push([name, a.tools.length]);
    }
    return out;
  }

  /**
   * invalidate drops the server's session and its tools (C7.1): an attempt
   * in flight is cancelled (P2.1), a session closed in the background
   * (P2.4), with P2.2's grace for stdio.
   */
  invalidate(name: string): void {
    this.unpublish(name);
    const a = this.attempts.get(name);
    if (!a) return;
    this.attempts.delete(name);
    a.cancel.abort();
    const done = a.done.then(() => (a.session ? closeGracefully(a.session) : undefined));
    this.closings.add(done);
    void done.then(() => this.closings.delete(done));
  }

  /** close ends every session and waits until each is closed (shutdown). */
  async close(): Promise<void> {
    this.closing = true;
    for (const name of Array.from(this.attempts.keys())) this.invalidate(name);
    await Promise.all(Array.from(this.closings));
  }
}

async function closeGracefully(s: Session): Promise<void> {
  try {
    await s.client.close();
  } catch {
    // closing is best effort
  }
}
