// The port's command line:
//
//   main.js --listen 127.0.0.1:PORT --state DIR --workspace DIR [--catalog FILE]
//       serves the contract (docs/contract.md); the bound address is the
//       first line of stdout; SIGTERM stops it ("Shutdown", docs/rules.md).
//   main.js store seed --state DIR    stores the bytes on stdin
//   main.js store dump --state DIR    prints the stored bytes
//       the store commands of the target file (docs/targets.md).

import { readFileSync } from "node:fs";
import { IncomingMessage, ServerResponse, createServer } from "node:http";
import { fileURLToPath } from "node:url";

import { ERA_VAR, parseEra } from "./era.js";
import { Store } from "./store.js";
import { TIME_SCALE_VAR, parseTimeScale } from "./time.js";

// The store commands run once per harness step: they load the store alone,
// not the SDK (loading it costs a few hundred milliseconds of CPU).
async function serviceModules() {
  const [{ Pool, trace }, { handler }, { Service }, { Deadlines }, { warmUp }] = await Promise.all([
    import("./pool.js"),
    import("./server.js"),
    import("./service.js"),
    import("./time.js"),
    import("./warmup.js"),
  ]);
  return { Pool, handler, Service, Deadlines, warmUp, trace };
}

// The one catalog of every implementation (P17). check hands it over as
// --catalog {catalog} (docs/targets.md); without the flag, the reference's
// file of this repository, found from the bundle (dist/ of ports/typescript).
function defaultCatalog(): string {
  return fileURLToPath(new URL("../../../impl/catalog.json", import.meta.url));
}

// How long closing the sessions may take on SIGTERM.
const SHUTDOWN_MS = 4000;

const USAGE = `usage:
  main.js --listen HOST:PORT --state DIR --workspace DIR [--catalog FILE]
  main.js store seed --state DIR   (the bytes to store on stdin)
  main.js store dump --state DIR`;

function flags(args: string[], known: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    let a = args[i];
    let value: string | undefined;
    if (!a.startsWith("--")) throw new Error(`unexpected argument ${JSON.stringify(a)}`);
    a = a.slice(2);
    const eq = a.indexOf("=");
    if (eq >= 0) {
      value = a.slice(eq + 1);
      a = a.slice(0, eq);
    } else {
      value = args[++i];
    }
    if (!known.includes(a)) throw new Error(`unknown flag --${a}`);
    if (value === undefined) throw new Error(`flag --${a} needs a value`);
    out.set(a, value);
  }
  return out;
}

function storeCommand(args: string[]): number {
  const [sub, ...rest] = args;
  const f = flags(rest, ["state"]);
  const state = f.get("state");
  if (!state) throw new Error("--state is required");
  const store = new Store(state);
  switch (sub) {
    case "seed": // the bytes on stdin, as they are: JSON or not (docs/targets.md)
      store.writeRaw(readFileSync(0));
      return 0;
    case "dump":
      process.stdout.write(store.rawBytes() ?? "null");
      process.stdout.write("\n");
      return 0;
    default:
      throw new Error(`unknown store command ${JSON.stringify(sub ?? "")} (want seed or dump)`);
  }
}

async function serveCommand(args: string[]): Promise<void> {
  const f = flags(args, ["listen", "state", "workspace", "catalog"]);
  const listen = f.get("listen") ?? "127.0.0.1:0";
  const state = f.get("state");
  if (!state) throw new Error("--state is required");
  const workspace = f.get("workspace") ?? "";
  const colon = listen.lastIndexOf(":");
  if (colon < 0) throw new Error(`--listen ${JSON.stringify(listen)}: want HOST:PORT`);
  const host = listen.slice(0, colon).replace(/^\[|\]$/g, "");
  const port = Number(listen.slice(colon + 1));
  const scale = parseTimeScale(process.env[TIME_SCALE_VAR]);
  const era = parseEra(process.env[ERA_VAR]); // E1.1: read once, before listening

  // The address is taken first, before the SDK is loaded (the harness chose
  // a free port: keep it); requests wait until the service is ready.
  let answer: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const waiting: [IncomingMessage, ServerResponse][] = [];
  const server = createServer((req, res) => (answer ? answer(req, res) : waiting.push([req, res])));
  // A request the parser cannot finish (a body cut before its
  // Content-Length) still gets the contract's JSON refusal (H1.6), not
  // Node's bare 400.
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const body = JSON.stringify({ ok: false, error: `lecture du corps: ${err.code ?? err.message}` });
    socket.end(
      "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n" +
        `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address();
  process.stdout.write((typeof addr === "object" && addr ? `${addr.address}:${addr.port}` : String(addr)) + "\n");

  const { Pool, handler, Service, Deadlines, warmUp, trace } = await serviceModules();
  const pool = new Pool(new Deadlines(scale), era);
  // The catalog file is read by each catalog request (P17.1: 500 when it cannot be).
  const svc = new Service(new Store(state), pool, f.get("catalog") ?? defaultCatalog(), workspace);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    // Stop answering, then close every session and end every stdio
    // server's process group before exiting ("Shutdown").
    server.close();
    server.closeAllConnections();
    let t: NodeJS.Timeout | undefined;
    try {
      // Bounded below the harness's 5 s before SIGKILL: at worst the
      // groups are ended at exit without their grace.
      await Promise.race([pool.close(), new Promise<void>((resolve) => (t = setTimeout(resolve, SHUTDOWN_MS)))]);
    } catch (e) {
      console.error("mcpparity-ts: shutdown:", e);
    }
    clearTimeout(t);
    process.exit(0); // the exit hook ends any stdio group still there
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());

  // Only scaled deadlines are short enough for a cold first handshake to
  // matter; unscaled, the CPU of a warm-up would only slow the machine.
  if (scale < 1) await warmUp(era);
  answer = handler(svc);
  for (const [req, res] of waiting.splice(0)) answer(req, res);
  const cpu = process.cpuUsage();
  trace(`ready after ${process.uptime().toFixed(2)} s, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms of CPU`);
}

async function main(argv: string[]): Promise<void> {
  process.on("unhandledRejection", (e) => console.error("mcpparity-ts: unhandled:", e));
  try {
    if (argv[0] === "store") {
      process.exitCode = storeCommand(argv.slice(1));
      return;
    }
    await serveCommand(argv);
  } catch (e) {
    console.error(`mcpparity-ts: ${(e as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

void main(process.argv.slice(2));
