import type { IncomingMessage, ServerResponse } from "node:http";

export type RawBodyResult = { ok: true; body: string } | { ok: false; status: 411 | 413 | 400; reason: string };
export type RawBytesResult = { ok: true; body: Buffer } | { ok: false; status: 411 | 413 | 400; reason: string };

/** Reads a request body up to `limit` bytes; past it, stops reading and reports 413. */
export async function readRawBody(req: IncomingMessage, limit: number): Promise<RawBodyResult> {
  const result = await readRawBytes(req, limit);
  return result.ok ? { ok: true, body: result.body.toString("utf8") } : result;
}

/** The body's bytes exactly as received (signatures are computed over them), up to `limit`. */
export function readRawBytes(req: IncomingMessage, limit: number): Promise<RawBytesResult> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) return Promise.resolve({ ok: false, status: 413, reason: `body larger than ${limit} bytes` });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off("data", onData);
        req.resume();
        resolve({ ok: false, status: 413, reason: `body larger than ${limit} bytes` });
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
