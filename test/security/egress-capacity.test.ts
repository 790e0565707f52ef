// Attack (issue #42, finding 10): eight sandboxes each holding their whole quota of egress connections
// (SANDBOX_EGRESS_MAX_CONNECTIONS, 128) filled the proxy's 1024 sockets, and a ninth sandbox got no
// egress at all — one tenant's runs could starve everyone else's. The proxy now keeps a reserve past
// its shared part that only a sandbox under its guaranteed share may take: sandboxes at their quota,
// however many, leave room for a new sandbox's connections. Real sockets, the proxy's default limits.
import { createServer, connect as netConnect, type Server, type Socket } from "node:net";
import type { Server as HttpServer } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EGRESS_LIMITS, egressCapacity, startEgressProxy } from "../../src/sandbox/providers/egress-proxy.js";

const ESTABLISHED = "HTTP/1.1 200 Connection Established";
const TOO_MANY = "HTTP/1.1 429 Too Many Requests";

describe("egress proxy: sandboxes at their quota cannot starve a new one", () => {
  let dir: string;
  let proxy: HttpServer;
  let upstream: Server;
  const sockets: Socket[] = [];
  const sock = () => join(dir, "p.sock");
  const port = () => (upstream.address() as { port: number }).port;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "osw-capacity-"));
    // An upstream that keeps every tunnel open, and answers "fine" to whatever arrives.
    upstream = createServer((s) => {
      s.on("error", () => s.destroy());
      sockets.push(s);
      s.on("data", () => s.write("fine\n"));
    });
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
    // The default per-sandbox quota (128); tunnels stay open for the test's length.
    proxy = await startEgressProxy(sock(), { refuseHosts: [], allow: [{ address: "127.0.0.1", port: port() }] }, undefined, { quietMs: 600_000 });
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    proxy.close();
    upstream.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A forwarder's connection for sandbox `id`: its line, then CONNECT; resolves with the proxy's first answer line ("closed" if it closed first). */
  function tunnelFrom(id: string): Promise<{ s: Socket; answer: string }> {
    return new Promise((resolve) => {
      const s = netConnect(sock());
      sockets.push(s);
      s.on("error", () => s.destroy());
      s.once("close", () => resolve({ s, answer: "closed" }));
      s.once("connect", () => s.write(`OSW-SANDBOX ${id}\nCONNECT 127.0.0.1:${port()} HTTP/1.1\r\n\r\n`));
      s.once("data", (d) => resolve({ s, answer: d.toString().split("\r\n")[0]! }));
    });
  }

  /** `n` tunnels from sandbox `id`, opened together; the answers counted. */
  async function hold(id: string, n: number): Promise<Record<string, number>> {
    const answers = await Promise.all(Array.from({ length: n }, () => tunnelFrom(id)));
    const counts: Record<string, number> = {};
    for (const a of answers) counts[a.answer] = (counts[a.answer] ?? 0) + 1;
    return counts;
  }

  it("eight sandboxes at their whole quota, then twenty more trying to, and a new sandbox still tunnels through", async () => {
    const quota = EGRESS_LIMITS.perSandbox;
    const capacity = egressCapacity(quota);
    // The eight that used to fill the proxy: every connection of every quota is established.
    for (let i = 0; i < 8; i++) expect(await hold(`tenant-${i}`, quota)).toEqual({ [ESTABLISHED]: quota });
    // The ninth: before, no connection at all (the proxy's socket limit was full). Now its guaranteed share.
    expect(await hold("tenant-8", quota)).toEqual({ [ESTABLISHED]: capacity.guaranteed, [TOO_MANY]: quota - capacity.guaranteed });
    // The same tenant starts more sandboxes, each trying to hold its whole quota: each gets its guaranteed share, no more.
    for (let i = 9; i < 28; i++) expect(await hold(`tenant-${i}`, quota)).toEqual({ [ESTABLISHED]: capacity.guaranteed, [TOO_MANY]: quota - capacity.guaranteed });
    // Another sandbox (another tenant's) still gets a tunnel through, and bytes both ways.
    const newcomer = await tunnelFrom("newcomer");
    expect(newcomer.answer).toBe(ESTABLISHED);
    const reply = new Promise<string>((r) => newcomer.s.once("data", (d) => r(d.toString())));
    newcomer.s.write("ping");
    expect(await reply).toBe("fine\n");
  }, 120_000);
});
