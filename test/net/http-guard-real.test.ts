import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { guardedFetch, pinnedLookup } from "../../src/net/http-guard.js";

let server: Server | undefined;
afterEach(async () => {
  // Back to the suite's rule (test/helpers/setup-each.ts): only local hosts may connect.
  nock.disableNetConnect();
  nock.enableNetConnect((host) => host.startsWith("127.0.0.1") || host.startsWith("localhost"));
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function listen(): Promise<{ port: number; hits: string[] }> {
  const hits: string[] = [];
  server = createServer((req, res) => {
    hits.push(`${req.headers.host} ${req.url}`);
    res.end("secret");
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { port: (server?.address() as AddressInfo).port, hits };
}

describe("http guard against a real local server", () => {
  it("never connects when a hostname resolves to loopback", async () => {
    const { port, hits } = await listen();
    const lookup = async () => [{ address: "127.0.0.1", family: 4 }];
    await expect(guardedFetch(`http://innocent.example.com:${port}/admin`, { lookup })).rejects.toMatchObject({ code: "url_blocked" });
    expect(hits).toEqual([]);
  });

  it("pins the connection to the checked address, whatever DNS would say at connect time", async () => {
    const { port, hits } = await listen();
    nock.enableNetConnect((host) => host.startsWith("pinned.invalid") || host.startsWith("127.0.0.1"));
    const body = await new Promise<string>((resolve, reject) => {
      // `.invalid` never resolves: reaching the server proves the pinned address was used.
      const req = request(`http://pinned.invalid:${port}/x`, { lookup: pinnedLookup([{ address: "127.0.0.1", family: 4 }]) }, (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve(text));
      });
      req.on("error", reject);
      req.end();
    });
    expect(body).toBe("secret");
    expect(hits).toEqual([`pinned.invalid:${port} /x`]);
  });
});
