import type { FetchLike } from "../net/pinned-fetch.js";
import { jsonTooDeep, McpAnswerRefused, type McpAnswerLimits } from "./mcp-answer-limits.js";

/**
 * A fetch for one MCP server whose answers are capped while they stream: a JSON answer is read up to
 * `maxBytes` and checked for nesting before the SDK parses it; an SSE stream is passed on event by
 * event, each event capped and checked the same way. Past a limit the body is cancelled (the server's
 * connection closes), `onRefused` hears why, and the SDK gets the error instead of the text.
 */
export function cappedFetch(base: FetchLike, server: string, limits: McpAnswerLimits, onRefused: (err: McpAnswerRefused) => void): FetchLike {
  const refuse = (kind: "too_large" | "too_deep"): McpAnswerRefused => {
    const err = new McpAnswerRefused(server, kind, limits);
    onRefused(err);
    return err;
  };
  return async (input, init) => {
    const res = await base(input, init);
    if (!res.body) return res;
    const type = res.headers.get("content-type") ?? "";
    const body = type.includes("text/event-stream") ? res.body.pipeThrough(sseEvents(limits, refuse)) : await readJson(res.body, limits, refuse);
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

async function readJson(body: ReadableStream<Uint8Array>, limits: McpAnswerLimits, refuse: (kind: "too_large" | "too_deep") => McpAnswerRefused): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > limits.maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw refuse("too_large");
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (jsonTooDeep(text, limits.maxDepth)) throw refuse("too_deep");
  return text;
}

/** Passes an SSE stream on whole events at a time; an event past the cap, or too deep, ends the stream with the refusal. */
function sseEvents(limits: McpAnswerLimits, refuse: (kind: "too_large" | "too_deep") => McpAnswerRefused): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  // The event so far, in pieces (joined once, when it ends), and its last characters (a boundary may straddle chunks).
  let parts: string[] = [];
  let tail = "";
  let pendingBytes = 0;
  return new TransformStream({
    transform(chunk, controller) {
      let text = decoder.decode(chunk, { stream: true });
      for (;;) {
        const m = /\r?\n\r?\n|\r\r/.exec(tail + text);
        if (!m) break;
        const end = m.index + m[0].length - tail.length;
        const event = parts.join("") + text.slice(0, end);
        parts = [];
        tail = "";
        pendingBytes = 0;
        text = text.slice(end);
        if (Buffer.byteLength(event) > limits.maxBytes) return controller.error(refuse("too_large"));
        if (jsonTooDeep(event, limits.maxDepth)) return controller.error(refuse("too_deep"));
        controller.enqueue(encoder.encode(event));
      }
      if (text === "") return;
      parts.push(text);
      pendingBytes += Buffer.byteLength(text);
      tail = (tail + text).slice(-3);
      if (pendingBytes > limits.maxBytes) controller.error(refuse("too_large"));
    },
    flush(controller) {
      if (parts.length > 0) controller.enqueue(encoder.encode(parts.join("")));
    },
  });
}
