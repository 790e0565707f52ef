import type { IncomingMessage, ServerResponse } from "node:http";

/** A refusal while reading: the status, why, and (429/503) when to try again. */
export type RawBodyRefusal = { ok: false; status: 411 | 413 | 400 | 429 | 503; reason: string; retryAfter?: number };
export type RawBodyResult = { ok: true; body: string } | RawBodyRefusal;
export type RawBytesResult = { ok: true; body: Buffer } | RawBodyRefusal;

/** Asked before each chunk is kept: null, or why no more of the body may be held (the read stops there). */
export type ChunkBudget = (bytes: number) => { status: 429 | 503; reason: string; retryAfter: number } | null;

/** Reads a request body up to `limit` bytes; past it, stops reading and reports 413. */
export async function readRawBody(req: IncomingMessage, limit: number, budget?: ChunkBudget): Promise<RawBodyResult> {
  const result = await readRawBytes(req, limit, budget);
  return result.ok ? { ok: true, body: result.body.toString("utf8") } : result;
}

/** The body's bytes exactly as received (signatures are computed over them), up to `limit` (and within `budget`). */
export function readRawBytes(req: IncomingMessage, limit: number, budget?: ChunkBudget): Promise<RawBytesResult> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) return Promise.resolve({ ok: false, status: 413, reason: `body larger than ${limit} bytes` });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      const refusal = size > limit ? { status: 413 as const, reason: `body larger than ${limit} bytes` } : (budget?.(chunk.length) ?? null);
      if (refusal) {
        req.off("data", onData);
        req.resume();
        resolve({ ok: false, ...refusal });
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve({ ok: true, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }));
    req.once("error", () => resolve({ ok: false, status: 400, reason: "request body could not be read" }));
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): true {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
  return true;
}
