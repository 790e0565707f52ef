import type { IncomingMessage, ServerResponse } from "node:http";

export type RawBodyResult = { ok: true; body: string } | { ok: false; status: 411 | 413 | 400; reason: string };

/** Reads a request body up to `limit` bytes; past it, stops reading and reports 413. */
export function readRawBody(req: IncomingMessage, limit: number): Promise<RawBodyResult> {
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
    req.once("end", () => resolve({ ok: true, body: chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8") }));
    req.once("error", () => resolve({ ok: false, status: 400, reason: "request body could not be read" }));
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): true {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
  return true;
}
