import type { IncomingMessage, ServerResponse } from "node:http";

export type RawBodyResult = { ok: true; body: string } | { ok: false; status: 411 | 413 | 400; reason: string };

/** Reads a request body up to `limit` bytes; past it, stops reading and reports 413. */
export async function readRawBody(req: IncomingMessage, limit: number): Promise<RawBodyResult> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) return { ok: false, status: 413, reason: `body larger than ${limit} bytes` };
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        req.destroy();
        return { ok: false, status: 413, reason: `body larger than ${limit} bytes` };
      }
      chunks.push(chunk as Buffer);
    }
  } catch {
    return { ok: false, status: 400, reason: "request body could not be read" };
  }
  return { ok: true, body: Buffer.concat(chunks).toString("utf8") };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): true {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
  return true;
}
