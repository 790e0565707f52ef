import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { startWebhookProxy, WEBHOOK_PATH, type WebhookProxy } from "../../src/net/webhook-proxy.js";

const servers: Server[] = [];
let proxy: WebhookProxy | undefined;
afterEach(async () => {
  proxy?.close();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const delivery = (n: number) => JSON.stringify({ "x-github-event": "ping", "x-github-delivery": `d-${n}`, "x-hub-signature-256": "sha256=00", body: { zen: `n${n}` }, query: {} });

/** A smee-style channel that writes the given chunks, with a pause between them, then holds the stream open. */
async function channel(chunks: string[]): Promise<string> {
  return listen((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    void (async () => {
      for (const c of chunks) {
        res.write(c);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
  });
}

/** The local webhook endpoint: what was relayed to it. */
async function target(): Promise<{ url: string; got: Array<{ headers: IncomingMessage["headers"]; body: unknown }> }> {
  const got: Array<{ headers: IncomingMessage["headers"]; body: unknown }> = [];
  const url = await listen((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      got.push({ headers: req.headers, body: JSON.parse(raw) });
      res.end("ok");
    });
  });
  return { url: `${url}${WEBHOOK_PATH}`, got };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
}

describe("the smee relay reads the event stream by its grammar (eventsource-parser)", () => {
  it("relays CRLF-separated events", async () => {
    const to = await target();
    const from = await channel([`event: ready\r\ndata: {}\r\n\r\n`, `data: ${delivery(1)}\r\n\r\ndata: ${delivery(2)}\r\n\r\n`]);
    proxy = startWebhookProxy(from, to.url, createLogger("silent"));
    await until(() => to.got.length === 2);
    expect(to.got.map((g) => g.body)).toEqual([{ zen: "n1" }, { zen: "n2" }]);
    expect(to.got[0]!.headers["x-github-delivery"]).toBe("d-1");
    expect(to.got[0]!.headers["content-type"]).toBe("application/json");
  });

  it("relays an event split across chunks (in the middle of its data, and between CR and LF)", async () => {
    const to = await target();
    const text = `id: 1\ndata: ${delivery(3)}\r\n\r\n`;
    const cut = text.indexOf("zen");
    const from = await channel([text.slice(0, cut), text.slice(cut, -3), text.slice(-3, -1), text.slice(-1), `data: ${delivery(4)}\r\r: keep-alive\n`]);
    proxy = startWebhookProxy(from, to.url, createLogger("silent"));
    await until(() => to.got.length === 2);
    expect(to.got.map((g) => g.body)).toEqual([{ zen: "n3" }, { zen: "n4" }]);
  });
});
