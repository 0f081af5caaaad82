// The HTTP contract (docs/contract.md) on Node's own http module: the
// routes, their methods, the body limit, and the errors common to every
// route.

import { IncomingMessage, ServerResponse } from "node:http";

import { kind, strList, strMap } from "./config.js";
import { Refused, SaveRequest, Service } from "./service.js";

const MAX_BODY = 1 << 20; // 1 MiB (docs/contract.md)

/** BadRequest is a body that does not fit the route (H1.1): "JSON invalide: …". */
class BadRequest extends Error {}

type Body = Record<string, unknown>;
type Handler = (body: Body) => Promise<[number, unknown]>;

interface Route {
  method: "GET" | "POST";
  handler: Handler;
}

// Field readers of the request bodies: null reads as absent.
function str(b: Body, f: string): string {
  const v = b[f];
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw new BadRequest(`field ${f}: ${kind(v)} is not a string`);
  return v;
}

function bool(b: Body, f: string): boolean | undefined {
  const v = b[f];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw new BadRequest(`field ${f}: ${kind(v)} is not a boolean`);
  return v;
}

function int(b: Body, f: string): number {
  const v = b[f];
  if (v === undefined || v === null) return 0;
  if (typeof v !== "number" || !Number.isInteger(v)) throw new BadRequest(`field ${f}: ${JSON.stringify(v)} is not an integer`);
  return v;
}

function object(b: Body, f: string): Record<string, unknown> | null {
  const v = b[f];
  if (v === undefined || v === null) return null;
  if (typeof v !== "object" || Array.isArray(v)) throw new BadRequest(`field ${f}: ${kind(v)} is not an object`);
  return v as Record<string, unknown>;
}

function routes(svc: Service): Map<string, Route> {
  const ok = (extra: Record<string, unknown>): [number, unknown] => [200, { ok: true, ...extra }];
  return new Map<string, Route>([
    ["/api/mcp", { method: "GET", handler: async () => ok({ servers: await svc.status() }) }],
    ["/api/mcp/catalog", { method: "GET", handler: async () => ok({ catalog: svc.catalogAnswer() }) }],
    [
      "/api/mcp/save",
      {
        method: "POST",
        handler: async (b) => {
          const req: SaveRequest = {
            name: str(b, "name"),
            command: str(b, "command"),
            args: strList(b.args, "field args", BadRequest),
            env: strMap(b.env, "field env", BadRequest),
            url: str(b, "url"),
            headers: strMap(b.headers, "field headers", BadRequest),
            enabled: bool(b, "enabled"),
          };
          return ok({ servers: await svc.save(req) });
        },
      },
    ],
    [
      "/api/mcp/delete",
      {
        method: "POST",
        handler: async (b) => {
          await svc.delete(str(b, "name"));
          return ok({});
        },
      },
    ],
    [
      "/api/mcp/toggle",
      { method: "POST", handler: async (b) => ok({ servers: await svc.toggle(str(b, "name"), bool(b, "on") ?? false) }) },
    ],
    [
      "/api/mcp/tool",
      {
        method: "POST",
        handler: async (b) => ok({ servers: await svc.tool(str(b, "name"), str(b, "tool"), bool(b, "on") ?? false) }),
      },
    ],
    ["/api/mcp/test", { method: "POST", handler: async (b) => ok({ servers: await svc.test(str(b, "name")) }) }],
    ["/internal/facade/v1/mcp/tools", { method: "POST", handler: async () => ok(await svc.tools()) }],
    [
      "/internal/facade/v1/mcp/call",
      {
        method: "POST",
        handler: async (b) => {
          const name = str(b, "name");
          const args = object(b, "args");
          const contextWindow = int(b, "contextWindow");
          return ok(await svc.call(name, args, contextWindow));
        },
      },
    ],
    [
      "/internal/facade/v1/mcp/prewarm",
      {
        method: "POST",
        handler: async () => {
          svc.prewarm(); // the connections go on in the background
          return [202, { ok: true }];
        },
      },
    ],
  ]);
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

const fail = (res: ServerResponse, status: number, error: string, headers?: Record<string, string>) =>
  send(res, status, { ok: false, error }, headers);

// A body over the limit is still read (and dropped) up to this size before
// the 413, so that the client, still sending, gets the answer rather than a
// broken pipe; a larger one is cut.
const DRAIN_MAX = 16 << 20;

/** readBody reads at most MAX_BODY bytes; undefined when the body is larger. */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number(req.headers["content-length"] ?? "0") > MAX_BODY;
    const finish = () => {
      req.removeAllListeners("data");
      resolve(over ? undefined : Buffer.concat(chunks));
    };
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) over = true;
      if (!over) chunks.push(c);
      else if (size > DRAIN_MAX) finish();
    });
    req.once("end", finish);
    req.once("error", reject);
  });
}

function parseBody(raw: Buffer): Body {
  const text = raw.toString("utf8");
  if (text.trim() === "") return {}; // requests without a body read as {}
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new BadRequest((e as Error).message);
  }
  if (v === null) return {};
  if (typeof v !== "object" || Array.isArray(v)) throw new BadRequest(`the body is ${kind(v)}, not an object`);
  return v as Body;
}

async function handle(table: Map<string, Route>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  const route = table.get(path);
  const method = req.method ?? "";
  if (!route) {
    req.resume();
    fail(res, 404, `route inconnue: ${method} ${path}`);
    return;
  }
  if (method !== route.method && !(route.method === "GET" && method === "HEAD")) {
    req.resume();
    fail(res, 405, `méthode non autorisée: ${method}`, { Allow: route.method });
    return;
  }
  let body: Body = {};
  if (route.method === "POST") {
    let raw: Buffer | undefined;
    try {
      raw = await readBody(req);
    } catch (e) {
      fail(res, 400, `lecture du corps: ${(e as Error).message}`, { Connection: "close" });
      return;
    }
    if (raw === undefined) {
      fail(res, 413, "corps de requête trop volumineux", { Connection: "close" });
      return;
    }
    try {
      body = parseBody(raw);
    } catch (e) {
      fail(res, 400, `JSON invalide: ${(e as Error).message}`);
      return;
    }
  } else {
    req.resume();
  }
  try {
    const [status, answer] = await route.handler(body);
    send(res, status, answer);
  } catch (e) {
    if (e instanceof BadRequest) fail(res, 400, `JSON invalide: ${e.message}`);
    else if (e instanceof Refused) fail(res, e.status, e.message);
    else {
      console.error("mcpparity-ts:", e);
      fail(res, 500, (e as Error).message);
    }
  }
}

/** handler answers the contract's requests for svc. */
export function handler(svc: Service): (req: IncomingMessage, res: ServerResponse) => void {
  const table = routes(svc);
  return (req, res) => {
    handle(table, req, res).catch((e) => {
      console.error("mcpparity-ts:", e);
      if (!res.headersSent) fail(res, 500, String(e));
      else res.destroy();
    });
  };
}
