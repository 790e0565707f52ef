import { OpenSweError } from "../errors.js";

/** The most one MCP message (an HTTP answer, an SSE event, a stdio line) may hold. */
export const MCP_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** The deepest nesting of arrays and objects an MCP message may have before it is parsed. */
export const MCP_MAX_JSON_DEPTH = 64;

export interface McpAnswerLimits {
  maxBytes: number;
  maxDepth: number;
}

export const MCP_ANSWER_LIMITS: McpAnswerLimits = { maxBytes: MCP_MAX_MESSAGE_BYTES, maxDepth: MCP_MAX_JSON_DEPTH };

/**
 * An MCP server's answer refused before it was parsed: too many bytes, or nested too deep. Parsing
 * either on the worker's event loop would stall every run on it (or exhaust its heap).
 */
export class McpAnswerRefused extends OpenSweError<"mcp_answer_too_large" | "mcp_answer_too_deep"> {
  constructor(
    readonly server: string,
    kind: "too_large" | "too_deep",
    limits: McpAnswerLimits,
  ) {
    super(
      kind === "too_large" ? "mcp_answer_too_large" : "mcp_answer_too_deep",
      kind === "too_large"
        ? `MCP server \`${server}\` sent a message over ${formatBytes(limits.maxBytes)}; it was refused unread`
        : `MCP server \`${server}\` sent JSON nested deeper than ${limits.maxDepth} levels; it was refused unparsed`,
    );
  }
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MB` : `${Math.round(n / 1024)} KB`;
}

/**
 * Whether JSON text nests arrays and objects deeper than `max` (brackets inside strings do not count).
 * One pass, no allocation: cheap enough to run on every message before `JSON.parse`.
 */
export function jsonTooDeep(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
