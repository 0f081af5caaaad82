// What the model sees (docs/rules.md): exposed names (P7), tool entries
// (P8), unknown tools (P9), flattened results (P11–P13), the prompt line
// (P14) and the call label (P15).

import { marshal, marshalIndent } from "./gojson.js";
import { CallResult, blockJSON } from "./results.js";
import { compareUTF8, cutRunes, trimSpace } from "./text.js";

/** sanitize is P7: runs outside [a-zA-Z0-9_-] become one "_", then "_" is trimmed from both ends. */
export function sanitize(s: string): string {
  return s.replace(/[^a-zA-Z0-9_-]+/gu, "_").replace(/^_+|_+$/g, "");
}

/** exposedName is P7.1: mcp__<sanitize(server)>__<sanitize(tool)>. */
export function exposedName(server: string, tool: string): string {
  return `mcp__${sanitize(server)}__${sanitize(tool)}`;
}

/** Tool is a tool of a server's first tools/list page, as sent. */
export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: unknown;
}

/** toTools reads the tools of a tools/list result. */
export function toTools(result: Record<string, unknown>): Tool[] {
  const list = result.tools;
  if (!Array.isArray(list)) throw new Error("tools/list result has no tools array");
  const out: Tool[] = [];
  for (const t of list) {
    if (t === null || typeof t !== "object" || typeof (t as Record<string, unknown>).name !== "string") continue;
    const o = t as Record<string, unknown>;
    out.push({
      name: o.name as string,
      title: typeof o.title === "string" ? o.title : "",
      description: typeof o.description === "string" ? o.description : "",
      inputSchema: o.inputSchema,
    });
  }
  return out;
}

const EMPTY_SCHEMA = { type: "object", properties: {} };

/** toolEntry is P8's entry of a tool announced to the model. */
export function toolEntry(server: string, t: Tool): { name: string; description: string; parameters: unknown } {
  const s = t.inputSchema;
  const object = s !== null && typeof s === "object" && !Array.isArray(s);
  return {
    name: exposedName(server, t.name),
    description: `[MCP: ${server}] ` + (t.description !== "" ? t.description : t.title),
    parameters: object ? s : EMPTY_SCHEMA, // P8.4: {} kept
  };
}

/** unknownTool is P9's output. */
export function unknownTool(name: string): string {
  return `[erreur] outil MCP inconnu ou serveur non connecté: ${name}`;
}

/** notConnected is P10.1's failure of an attempt without a connected session. */
export function notConnected(server: string): string {
  return `serveur ${server} non connecté`;
}

/** mcpError is P10's output of a failed call. */
export function mcpError(text: string): string {
  return `[erreur MCP] ${text}`;
}

/**
 * promptLine is P14's text: "<name> (<count>)" for each server with at
 * least one tool, the formatted strings sorted (UTF-8 bytes), joined by ", ".
 */
export function promptLine(counts: [string, number][]): string {
  const parts = counts.filter(([, n]) => n > 0).map(([name, n]) => `${name} (${n})`);
  if (parts.length === 0) return "";
  parts.sort(compareUTF8);
  return `\n\nMCP servers connected (their tools are prefixed mcp__<server>__<tool>): ${parts.join(", ")}.`;
}

const MIN_CAP = 12000;
const CUT_MARK = "\n…[tronqué]";

/**
 * flatten is P11: text blocks give their text, image and audio blocks a
 * mark, any other block its JSON; joined by "\n" and trimmed; an empty text
 * with structured content gives that content as indented JSON. The result
 * is read first (src/results.ts): a field missing or null is empty (P11.4),
 * structured content of any type is written as it is (P11.5).
 */
export function flatten(result: CallResult): string {
  const parts = result.content.map((block) => {
    switch (block.type) {
      case "text":
        return block.text;
      case "image":
        return `[image ${block.mimeType}]`;
      case "audio":
        return `[audio ${block.mimeType}]`;
      default:
        return blockJSON(block);
    }
  });
  const text = trimSpace(parts.join("\n"));
  const structured = result.structuredContent;
  if (text === "" && structured !== undefined && structured !== null) {
    return marshalIndent(structured);
  }
  return text;
}

/** cap is P12: at most max(contextWindow, 12000) runes, then the cut mark. */
export function cap(output: string, contextWindow: number): string {
  const { text, cut } = cutRunes(output, Math.max(contextWindow, MIN_CAP));
  return cut ? text + CUT_MARK : text;
}

/** callOutput is P11–P13: the output of a call's result. */
export function callOutput(result: CallResult, contextWindow: number): string {
  const out = cap(flatten(result), contextWindow);
  if (result.isError === true) return "[l'outil a renvoyé une erreur]\n" + out;
  if (out === "") return "[ok] (aucune sortie)";
  return out;
}

const LABEL_KEYS = ["path", "file", "query", "command", "url", "name"];
const LABEL_MAX = 120;

/**
 * label is P15: the first argument of LABEL_KEYS that is a non-empty
 * string, as sent (white space included), or the arguments' JSON cut at
 * 120 runes.
 */
export function label(args: Record<string, unknown> | null | undefined): string {
  if (!args || Object.keys(args).length === 0) return "";
  for (const k of LABEL_KEYS) {
    const v = Object.prototype.hasOwnProperty.call(args, k) ? args[k] : undefined;
    if (typeof v === "string" && v !== "") return v;
  }
  const { text, cut } = cutRunes(marshal(args), LABEL_MAX);
  return cut ? text + "…" : text;
}
