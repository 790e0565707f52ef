import { createServer, type Server } from "node:http";
import type { Redis } from "ioredis";
import { healthHandler } from "./health.js";
import { sendJson } from "./raw-body.js";

/** A worker's own health endpoint (it serves no webhooks): only GET /health, for container checks. */
export async function startHealthServer(o: { redis: Redis; role: string; port: number; host: string; check?: () => string | null }): Promise<{ port: number; close(): Promise<void> }> {
  const health = healthHandler(o.redis, o.role, o.check);
  const server: Server = createServer((req, res) => {
    void health(req, res).then((handled) => handled || sendJson(res, 404, { error: "only GET /health here" }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
