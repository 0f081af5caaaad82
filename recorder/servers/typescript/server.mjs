// A small MCP server on the TypeScript SDK 2.x (@modelcontextprotocol/server),
// served over stdio or Streamable HTTP, for mcpparity to record.
//
//   node server.mjs --stdio [--legacy reject]
//   node server.mjs --http 127.0.0.1:PORT [--legacy reject]
//
// Nothing but MCP messages is written to stdout. Without --legacy the SDK's
// defaults apply (both eras served); --legacy reject passes the SDK's own
// `legacy: 'reject'` option to its serving entry (createMcpHandler for HTTP,
// serveStdio for stdio).

import http from 'node:http';
import { Readable } from 'node:stream';
import { McpServer, ProtocolError, ProtocolErrorCode, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const SERVER_INFO = { name: 'mcpparity-ts-server', version: '1.0.0' };

// echo's input schema, given as JSON Schema through the SDK's fromJsonSchema
// (validated by the SDK's default JSON Schema validator, AJV on Node), so that
// tools/list shows exactly this object. (A zod schema would add a "$schema"
// member to it.) fail and rpc_error have no inputSchema: the SDK lists them
// with {"type":"object","properties":{}}.
const ECHO_INPUT = { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] };

function usage(message) {
    process.stderr.write(
        `server.mjs: ${message}\n` +
            'usage: node server.mjs --stdio [--legacy reject]\n' +
            '       node server.mjs --http HOST:PORT [--legacy reject]\n'
    );
    process.exit(2);
}

function parseArgs(argv) {
    const opts = { mode: undefined, addr: undefined, legacyReject: false };
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === '--stdio') {
            if (opts.mode) usage('give one of --stdio and --http');
            opts.mode = 'stdio';
        } else if (arg === '--http') {
            if (opts.mode) usage('give one of --stdio and --http');
            opts.mode = 'http';
            opts.addr = argv[++i];
            if (!opts.addr) usage('--http needs HOST:PORT');
        } else if (arg === '--legacy') {
            const value = argv[++i];
            if (value !== 'reject') usage(`--legacy takes only "reject", not ${JSON.stringify(value)}`);
            opts.legacyReject = true;
        } else {
            usage(`unknown argument ${JSON.stringify(arg)}`);
        }
    }
    if (!opts.mode) usage('give --stdio or --http HOST:PORT');
    return opts;
}

// One factory for every serving unit: the HTTP entry calls it once per
// request, serveStdio once per connection (plus a discarded probe instance).
function buildServer() {
    const mcp = new McpServer(SERVER_INFO);

    mcp.registerTool(
        'echo',
        { description: 'Echoes its message.', inputSchema: fromJsonSchema(ECHO_INPUT) },
        async ({ message }) => ({ content: [{ type: 'text', text: message }] })
    );

    mcp.registerTool('fail', { description: 'Always fails: returns a tool error (isError).' }, async () => ({
        content: [{ type: 'text', text: 'the tool failed on purpose' }],
        isError: true
    }));

    // McpServer's own tools/call handler turns everything a tool callback
    // throws (ProtocolError included, except UrlElicitationRequired) into an
    // isError result. The tool is registered here so that tools/list shows it
    // in its place; its JSON-RPC error comes from the tools/call override below.
    mcp.registerTool('rpc_error', { description: 'Always fails: answers a JSON-RPC error.' }, async () => {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'rpc_error failed on purpose');
    });

    // The SDK's escape hatch (mcp.server, the low-level Server): take over
    // tools/call so that rpc_error throws a ProtocolError from a request
    // handler, which the protocol layer answers as a JSON-RPC error response.
    // Every other tool goes on to McpServer's own tools/call handler, so echo
    // and fail behave exactly as registerTool makes them behave.
    const sdkToolsCall = mcp.server._getRequestHandler('tools/call');
    if (typeof sdkToolsCall !== 'function') throw new Error('McpServer registered no tools/call handler');
    mcp.server.removeRequestHandler('tools/call');
    mcp.server.setRequestHandler('tools/call', async (request, ctx) => {
        if (request.params.name === 'rpc_error') {
            throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'rpc_error failed on purpose');
        }
        return sdkToolsCall(request, ctx);
    });

    return mcp;
}

// The SDK's onerror reports (rejected requests, unparsable messages) go to
// stderr, one line each.
function report(error) {
    const text = String(error?.message ?? error).replace(/\s*\n\s*/g, ' ');
    process.stderr.write(`mcpparity-ts-server: ${text}\n`);
}

function serveOverStdio(legacyReject) {
    const handle = serveStdio(buildServer, {
        ...(legacyReject && { legacy: 'reject' }),
        onerror: report
    });
    // The SDK's stdio transport closes itself when stdin ends; nothing else
    // keeps the process alive, so it exits then. Exit on SIGTERM/SIGINT too.
    process.stdin.on('end', () => {
        handle.close().finally(() => process.exit(0));
    });
    for (const signal of ['SIGTERM', 'SIGINT']) {
        process.on(signal, () => {
            handle.close().finally(() => process.exit(0));
        });
    }
}

function parseAddr(addr) {
    const colon = addr.lastIndexOf(':');
    if (colon <= 0) usage(`bad address ${JSON.stringify(addr)}: want HOST:PORT`);
    let host = addr.slice(0, colon);
    if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
    const port = Number(addr.slice(colon + 1));
    if (!Number.isInteger(port) || port < 0 || port > 65535) usage(`bad port in ${JSON.stringify(addr)}`);
    return { host, port };
}

// node:http <-> web-standard Request/Response, for handler.fetch. (The SDK's
// @modelcontextprotocol/node package offers toNodeHandler for this; the bridge
// is written out here so that the server depends on the server package only.)
function toWebRequest(req, origin, signal) {
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    return new Request(new URL(req.url ?? '/', origin), {
        method: req.method,
        headers,
        signal,
        ...(hasBody && { body: Readable.toWeb(req), duplex: 'half' })
    });
}

async function writeWebResponse(response, res) {
    const headers = {};
    for (const [name, value] of response.headers) {
        if (name === 'set-cookie') continue;
        headers[name] = value;
    }
    const cookies = response.headers.getSetCookie?.() ?? [];
    if (cookies.length > 0) headers['set-cookie'] = cookies;
    const streaming = /^text\/event-stream\b/i.test(response.headers.get('content-type') ?? '');
    if (!response.body || !streaming) {
        // A whole body (JSON, or none): sent with its Content-Length.
        const body = response.body ? Buffer.from(await response.arrayBuffer()) : Buffer.alloc(0);
        headers['content-length'] = String(body.length);
        res.writeHead(response.status, response.statusText || undefined, headers);
        res.end(body);
        return;
    }
    // An SSE stream: each chunk is written as the SDK produces it.
    res.writeHead(response.status, response.statusText || undefined, headers);
    const reader = response.body.getReader();
    res.on('close', () => reader.cancel().catch(() => {}));
    try {
        for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            res.write(value);
        }
    } catch {
        // the client went away, or the stream was cancelled
    }
    res.end();
}

function serveOverHttp(addr, legacyReject) {
    const { host, port } = parseAddr(addr);
    const handler = createMcpHandler(buildServer, {
        ...(legacyReject && { legacy: 'reject' }),
        onerror: report
    });
    const server = http.createServer(async (req, res) => {
        const origin = `http://${req.headers.host ?? `${host}:${port}`}`;
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (path !== '/mcp') {
            res.writeHead(404, { 'content-type': 'text/plain' });
            res.end('not found\n');
            return;
        }
        const abort = new AbortController();
        res.on('close', () => {
            if (!res.writableFinished) abort.abort();
        });
        try {
            const response = await handler.fetch(toWebRequest(req, origin, abort.signal));
            await writeWebResponse(response, res);
        } catch (error) {
            report(error);
            if (!res.headersSent) {
                res.writeHead(500, { 'content-type': 'application/json' });
                res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } }));
            } else {
                res.end();
            }
        }
    });
    server.on('error', error => {
        report(error);
        process.exit(1);
    });
    server.listen(port, host, () => {
        const bound = server.address();
        const shown = bound.family === 'IPv6' ? `[${bound.address}]:${bound.port}` : `${bound.address}:${bound.port}`;
        process.stderr.write(`mcpparity-ts-server listening on http://${shown}/mcp\n`);
    });
    const shutdown = () => {
        server.close();
        server.closeAllConnections?.();
        handler.close().finally(() => process.exit(0));
    };
    process.on('SIGTERM', shutdown);
    process.on('SIGINT', shutdown);
}

const opts = parseArgs(process.argv.slice(2));
if (opts.mode === 'stdio') serveOverStdio(opts.legacyReject);
else serveOverHttp(opts.addr, opts.legacyReject);
