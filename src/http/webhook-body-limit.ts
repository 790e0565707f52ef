import type { IncomingMessage, ServerResponse } from "node:http";
import { readRawBody, sendJson } from "./raw-body.js";

/**
 * Runs before Probot's webhook middleware: enforces the size limit while reading, then hands the raw
 * string on as `req.body`, which @octokit/webhooks verifies byte-for-byte before parsing.
 */
export function webhookBodyLimit(path: string, limit: number) {
  return async (req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<boolean> => {
    if (req.method !== "POST" || (req.url ?? "").split("?")[0]?.replace(/\/+$/, "") !== path) return false;
    const result = await readRawBody(req, limit);
    if (!result.ok) {
      res.setHeader("connection", "close");
      return sendJson(res, result.status, { error: result.reason });
    }
    req.body = result.body;
    return false;
  };
}
