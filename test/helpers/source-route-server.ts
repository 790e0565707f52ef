import { createServer, type Server } from "node:http";
import type { SourceEvent, SourceRoute } from "../../src/sources/source.js";

export interface RouteServer {
  port: number;
  /** Every event a verified request parsed into, in order. */
  events: SourceEvent[];
  /** Every refusal reason `verify` gave (the response itself is a bare 401). */
  refusals: string[];
  close(): Promise<void>;
}

/**
 * A real HTTP server in front of source routes, exactly as the interface describes them: raw bytes in,
 * verify first (401 on refusal), then parse (respond → its status and body, ignore → 200, mention → 202).
 */
export async function startRouteServer(routes: SourceRoute[]): Promise<RouteServer> {
  const events: SourceEvent[] = [];
  const refusals: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const url = req.url ?? "/";
        const route = routes.find((r) => r.method === req.method && r.path === url.split("?")[0]);
        if (!route) return void res.writeHead(404).end();
        const inbound = { method: req.method!, url, headers: req.headers, rawBody: Buffer.concat(chunks), receivedAt: new Date() };
        const v = await route.verify(inbound);
        if (!v.ok) {
          refusals.push(v.reason);
          return void res.writeHead(401).end();
        }
        const event = await route.parse(inbound, v);
        events.push(event);
        if (event.kind === "respond") {
          const body = typeof event.body === "string" ? event.body : JSON.stringify(event.body ?? null);
          return void res.writeHead(event.status, { "content-type": typeof event.body === "string" ? "text/plain" : "application/json" }).end(event.status === 204 ? undefined : body);
        }
        res.writeHead(event.kind === "mention" ? 202 : 200, { "content-type": "application/json" }).end(JSON.stringify({ kind: event.kind }));
      })().catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    port,
    events,
    refusals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
