// The store (C8, docs/rules.md; the store contract of docs/targets.md): the
// configuration JSON in one file, {state}/mcp.json, replaced atomically
// (temporary file, fsync, rename, fsync of the folder). Nothing holds the
// file open between requests, so the harness's store commands can read it
// at any time.

import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";

import { Config, serializeConfig } from "./config.js";
import { decodeConfig } from "./stored.js";

export const STORE_FILE = "mcp.json";

export class Store {
  readonly path: string;

  constructor(readonly dir: string) {
    this.path = join(dir, STORE_FILE);
  }

  /** raw returns the stored text, or undefined when nothing is stored. */
  raw(): string | undefined {
    return this.rawBytes()?.toString("utf8");
  }

  /** rawBytes returns the stored bytes, or undefined when nothing is stored. */
  rawBytes(): Buffer | undefined {
    try {
      return readFileSync(this.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
  }

  /**
   * read is the stored configuration as C8.4 reads it: what decodes; no
   * servers when nothing is stored or the file cannot be read.
   */
  read(): Config {
    let text: string | undefined;
    try {
      text = this.raw();
    } catch {
      text = undefined; // unreadable: no servers (C8.5)
    }
    return text === undefined ? new Map() : decodeConfig(text);
  }

  /** write replaces the stored configuration (C8 form). */
  write(cfg: Config): void {
    this.writeRaw(serializeConfig(cfg));
  }

  /** writeRaw replaces the stored bytes atomically. */
  writeRaw(text: string | Buffer): void {
    const tmp = join(this.dir, `.${STORE_FILE}.${process.pid}.${Date.now()}.tmp`);
    const fd = openSync(tmp, "w", 0o600);
    try {
      if (typeof text === "string") writeSync(fd, text);
      else writeSync(fd, text);
      fsyncSync(fd);
    } catch (e) {
      closeSync(fd);
      try {
        unlinkSync(tmp);
      } catch {
        // nothing to clean
      }
      throw e;
    }
    closeSync(fd);
    renameSync(tmp, this.path);
    // The rename itself is made durable by syncing the folder.
    try {
      const dfd = openSync(this.dir, "r");
      try {
        fsyncSync(dfd);
      } finally {
        closeSync(dfd);
      }
    } catch {
      // some file systems cannot sync a folder; the rename is done
    }
  }
}
