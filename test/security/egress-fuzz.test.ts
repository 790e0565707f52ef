// Attack: bytes a sandbox (or a remote it talks to) sends at the egress proxy must never stop the worker.
// Before: `CONNECT 1.1.1.1:70000` and an upstream answering `HTTP/1.1 099` each threw in the worker.
// Every destination here is loopback (fake upstreams allowed by the rules), a refused address, or a
// request refused before any lookup or connect: no byte leaves this machine.
import { createServer, connect as netConnect, type Server, type Socket } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { egressGateway } from "../../src/sandbox/providers/egress-netns.js";
import { githubApiRules, type EgressRules } from "../../src/sandbox/providers/egress-policy.js";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";
import { viaProxy } from "../helpers/proxy-request.js";

/** Deterministic PRNG (mulberry32): a failing case can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fake upstreams on loopback, each misbehaving in one way after it reads the request head. */
const UPSTREAM_REPLIES: Record<string, (s: Socket) => void> = {
  status099: (s) => s.end("HTTP/1.1 099 Weird\r\nContent-Length: 0\r\n\r\n"),
  status000: (s) => s.end("HTTP/1.1 000 Zero\r\n\r\n"),
  status1000: (s) => s.end("HTTP/1.1 1000 Big\r\n\r\n"),
  status600: (s) => s.end("HTTP/1.1 600 Odd\r\nContent-Length: 2\r\n\r\nok"),
  status101: (s) => s.end("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\nraw"),
  status100: (s) => s.end("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 099 Nope\r\n\r\n"),
  noStatus: (s) => s.end("HTTP/1.1\r\n\r\n"),
  garbage: (s) => s.end(Buffer.from([0, 255, 13, 10, 13, 10, 1, 2, 3])),
  reset: (s) => s.resetAndDestroy(),
  closeAtOnce: (s) => s.destroy(),
  hugeHeaders: (s) => s.end(`HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(1 << 20)}\r\n\r\n`),
  manyHeaders: (s) => s.end(`HTTP/1.1 200 OK\r\n${Array.from({ length: 5000 }, (_, i) => `X-${i}: v`).join("\r\n")}\r\n\r\n`),
  badHeaderChars: (s) => s.end("HTTP/1.1 200 OK\r\nX-Bad: a\u0000b\r\nSet-Cookie\r\n\r\n"),
  badChunked: (s) => s.end("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nxx\r\n"),
  doubleLength: (s) => s.end("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello"),
  truncatedBody: (s) => s.end("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\nshort"),
  halfOpen: (s) => {
    s.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
    s.end();
  },
  silent: () => undefined,
  slowDrip: (s) => {
    let i = 0;
    const t = setInterval(() => (i++ < 5 && !s.destroyed ? s.write("H") : (clearInterval(t), s.destroy())), 20);
  },
};

const hits = new Map<number, number>();

async function listenRaw(onHead: (s: Socket) => void): Promise<Server> {
  const server = createServer((s) => {
    s.on("error", () => undefined);
    const port = s.localPort ?? 0;
    hits.set(port, (hits.get(port) ?? 0) + 1);
    s.once("data", () => onHead(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return server;
}

const portOf = (s: Server): number => (s.address() as { port: number }).port;

/** Sends `bytes` to the proxy socket (maybe in slow pieces, maybe half-closing) and waits a moment. */
function throwAt(socketPath: string, bytes: Buffer, mode: "whole" | "drip" | "halfclose" | "abort"): Promise<void> {
  return new Promise((resolve) => {
    const s = netConnect(socketPath);
    const done = (): void => {
      clearTimeout(timer);
      s.destroy();
      resolve();
    };
    const timer = setTimeout(done, 400);
    s.on("error", done);
    s.on("close", done);
    s.on("data", () => undefined);
    s.on("connect", () => {
      if (mode === "whole") s.write(bytes);
      else if (mode === "halfclose") s.end(bytes);
      else if (mode === "abort") {
        s.write(bytes.subarray(0, Math.max(1, bytes.length >> 1)));
        s.destroy();
      } else {
        let i = 0;
        const step = Math.max(1, bytes.length >> 3);
        const t = setInterval(() => {
          if (s.destroyed || i >= bytes.length) return clearInterval(t);
          s.write(bytes.subarray(i, (i += step)));
        }, 10);
      }
    });
  });
}

/** One request at the proxy socket; the whole answer. */
function ask(socketPath: string, request: string): Promise<string> {
  return new Promise((resolve) => {
    const s = netConnect(socketPath);
    let text = "";
    const timer = setTimeout(() => s.destroy(), 2_000);
    s.on("connect", () => s.write(request));
    s.on("data", (d: Buffer) => (text += d.toString()));
    s.on("error", () => undefined);
    s.on("close", () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}

describe("egress proxy under hostile traffic", () => {
  let root: string;
  let provider: LocalSandboxProvider;
  let sb: LocalSandbox;
  let rules: EgressRules;
  const upstreams = new Map<string, number>();
  const servers: Server[] = [];
  let goodPort: number;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-fuzz-"));
    for (const [name, reply] of Object.entries(UPSTREAM_REPLIES)) {
      const s = await listenRaw(reply);
      servers.push(s);
      upstreams.set(name, portOf(s));
    }
    const good = await listenRaw((s) => s.end("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nfine\n"));
    servers.push(good);
    goodPort = portOf(good);
    rules = { ...githubApiRules(), allow: [...upstreams.values(), goodPort].map((port) => ({ address: "127.0.0.1", port })) };
    provider = new LocalSandboxProvider({ root, execTimeoutMs: 20_000, maxOutputBytes: 1 << 20, egressPolicy: rules });
    sb = await provider.create({ network: true });
  });
  afterAll(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    egressGateway(root, rules).proxy.stop();
    for (const s of servers) s.close();
    await rm(root, { recursive: true, force: true });
  });

  const goodGet = () => viaProxy(`GET http://127.0.0.1:${goodPort}/ HTTP/1.0\\r\\n\\r\\n`);

  it("the reported crashes are answers now: CONNECT to port 70000 is a 400, an upstream's 099 a 502", async () => {
    const badPort = await sb.exec(viaProxy("CONNECT 1.1.1.1:70000 HTTP/1.1\\r\\nHost: 1.1.1.1:70000\\r\\n\\r\\n"));
    expect(badPort.stdout).toMatch(/^HTTP\/1\.1 400 [\s\S]*bad port/);
    const weird = await sb.exec(viaProxy(`GET http://127.0.0.1:${upstreams.get("status099")}/ HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n`));
    expect(weird.stdout).toMatch(/^HTTP\/1\.1 502 [\s\S]*invalid status 99/);
    expect((await sb.exec(goodGet())).stdout).toMatch(/^HTTP\/1\.1 200[\s\S]*fine\n$/);
  });

  it("survives every misbehaving upstream, through plain HTTP and CONNECT, from inside a real sandbox", async () => {
    const gw = egressGateway(root, rules);
    const pid = gw.proxy.pid();
    expect(pid).toBeGreaterThan(0);
    const script = [...upstreams.values()]
      .flatMap((port) => [`GET http://127.0.0.1:${port}/x HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n`, `CONNECT 127.0.0.1:${port} HTTP/1.1\\r\\n\\r\\nGET / HTTP/1.1\\r\\n\\r\\n`])
      .map((req) => `(exec 3<>/dev/tcp/127.0.0.1/$P && printf "${req}" >&3 && timeout 1 cat <&3 >/dev/null) &`)
      .join("\n");
    hits.clear();
    const r = await sb.exec(`bash <<'EOF'\nP=\${HTTP_PROXY##*:}\n${script}\nwait; echo done\nEOF`);
    expect(r.stdout).toContain("done");
    // Each fake upstream was reached twice (plain HTTP and a tunnel): the bytes really went through.
    for (const port of upstreams.values()) expect(hits.get(port), `upstream on ${port}`).toBe(2);
    expect((await sb.exec(goodGet())).stdout).toMatch(/^HTTP\/1\.1 200[\s\S]*fine\n$/);
    expect(gw.proxy.pid()).toBe(pid);
    expect(gw.proxy.restarts()).toBe(0);
  });

  it("survives a corpus of malformed CONNECT/HTTP requests thrown directly at its socket", async () => {
    const gw = egressGateway(root, rules);
    await gw.proxy.whenReady();
    const pid = gw.proxy.pid();
    const rand = prng(0x05e);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const ports = [...upstreams.values()];
    // Refused addresses, bad ports and malformed hosts (each has a character no DNS name has, so no lookup runs).
    const hosts = ["127.0.0.1", "[::1]", "0.0.0.0", "10.0.0.1", "169.254.169.254", "[fe80::1]", "[::ffff:127.0.0.1]", "bad host", "%00", "a/b", "ünï", "[::1", "1.1.1.1:80:80", ""];
    const badPorts = ["70000", "0", "-1", "99999999999999999999", "443abc", "", "0x50", "1e3"];
    const methods = ["CONNECT", "GET", "POST", "PUT", "OPTIONS", "PRI", "G\u0000T", "connect", "", "X".repeat(300)];
    const versions = ["HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/9", "HTTP/1.1\u0000", ""];
    const headerJunk = [
      "Host: x",
      "Content-Length: -1",
      "Content-Length: 5\r\nContent-Length: 6",
      "Transfer-Encoding: chunked\r\nContent-Length: 3",
      `X-Huge: ${"h".repeat(70_000)}`,
      Array.from({ length: 3000 }, (_, i) => `X-${i}: y`).join("\r\n"),
      "Bad Header Line",
      "X-Null: a\u0000b",
      "Expect: 100-continue",
      "Connection: upgrade\r\nUpgrade: websocket",
    ];
    const cases: Buffer[] = [];
    for (let i = 0; i < 240; i++) {
      const method = pick(methods);
      const useGood = rand() < 0.5;
      const host = useGood ? "127.0.0.1" : pick(hosts);
      const port = useGood ? String(pick(ports)) : pick(badPorts);
      const target = method.toUpperCase() === "CONNECT" ? `${host}:${port}` : pick([`http://${host}:${port}/p`, `https://${host}:${port}/`, "/relative", "*", `http://${host}:${port}`, "%%%"]);
      const headers = Array.from({ length: Math.floor(rand() * 3) }, () => pick(headerJunk)).join("\r\n");
      const ending = pick(["\r\n\r\n", "\r\n", "\n\n", "", "\r\n\r\nbody-bytes", "\r\n\r\n5\r\nhello\r\n0\r\n\r\n"]);
      cases.push(Buffer.from(`${method} ${target} ${pick(versions)}\r\n${headers}${ending}`, "latin1"));
    }
    // Random bytes that can never start a request line (first byte not a letter).
    for (let i = 0; i < 40; i++) cases.push(Buffer.from([0x80 + Math.floor(rand() * 0x7f), ...Array.from({ length: 1 + Math.floor(rand() * 2000) }, () => Math.floor(rand() * 256))]));
    const modes = ["whole", "drip", "halfclose", "abort"] as const;
    for (let i = 0; i < cases.length; i += 24) {
      await Promise.all(cases.slice(i, i + 24).map((c, j) => throwAt(gw.socketPath, c, modes[(i + j) % modes.length]!)));
    }
    expect(gw.proxy.pid()).toBe(pid);
    expect(gw.proxy.restarts()).toBe(0);
    expect((await sb.exec(goodGet())).stdout).toMatch(/^HTTP\/1\.1 200[\s\S]*fine\n$/);
  });

  it("survives a flood of held-open tunnels beyond its connection cap, and serves again once they go", async () => {
    const gw = egressGateway(root, rules);
    await gw.proxy.whenReady();
    const pid = gw.proxy.pid();
    const silent = upstreams.get("silent")!;
    const sockets = await Promise.all(
      Array.from(
        { length: 1100 },
        () =>
          new Promise<Socket>((resolve) => {
            const s = netConnect(gw.socketPath);
            s.on("error", () => resolve(s));
            s.on("connect", () => {
              s.write(`CONNECT 127.0.0.1:${silent} HTTP/1.1\r\n\r\nhello`);
              resolve(s);
            });
          }),
      ),
    );
    await new Promise((r) => setTimeout(r, 300));
    for (const s of sockets) s.destroy();
    // The proxy sees the closes a moment later; until then it is at its cap and drops new connections.
    let answer = "";
    for (let i = 0; i < 50 && !answer.includes("fine"); i++) {
      answer = await ask(gw.socketPath, `GET http://127.0.0.1:${goodPort}/ HTTP/1.0\r\n\r\n`);
      if (!answer.includes("fine")) await new Promise((r) => setTimeout(r, 100));
    }
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect((await sb.exec(goodGet())).stdout).toMatch(/^HTTP\/1\.1 200[\s\S]*fine\n$/);
    expect(gw.proxy.pid()).toBe(pid);
    expect(gw.proxy.restarts()).toBe(0);
  });

  it("if the proxy process dies anyway, the worker lives on and the next sandbox command has egress again", async () => {
    const gw = egressGateway(root, rules);
    await gw.proxy.whenReady();
    const pid = gw.proxy.pid()!;
    expect(pid).not.toBe(process.pid);
    process.kill(pid, "SIGKILL");
    // Connections in flight at the moment it dies are cut; wait until the worker has seen it go.
    for (let i = 0; i < 100 && gw.proxy.pid() === pid; i++) await new Promise((r) => setTimeout(r, 20));
    expect(gw.proxy.pid()).not.toBe(pid);
    const r = await sb.exec(goodGet());
    expect(r.stdout).toMatch(/^HTTP\/1\.1 200[\s\S]*fine\n$/);
    expect(gw.proxy.pid()).not.toBe(pid);
    expect(gw.proxy.restarts()).toBe(1);
  });
});
