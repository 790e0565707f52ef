// Attack: one sandbox holds every socket of the worker's shared egress proxy (tunnels it opens and never
// uses, or half-closes and leaves), and every other sandbox on the worker loses its network. Each
// sandbox now has a quota of connections (SANDBOX_EGRESS_MAX_CONNECTIONS), a tunnel that carries no byte
// is closed after 30 s, and a tunnel the sandbox half-closes is torn down.
import { createServer, connect as netConnect, type Server, type Socket } from "node:net";
import type { Server as HttpServer } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { egressGateway } from "../../src/sandbox/providers/egress-netns.js";
import { githubApiRules, type EgressRules } from "../../src/sandbox/providers/egress-policy.js";
import { startEgressProxy } from "../../src/sandbox/providers/egress-proxy.js";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";

const QUOTA = 6;

async function listen(onSocket: (s: Socket) => void, allowHalfOpen = false): Promise<Server> {
  const s = createServer({ allowHalfOpen }, (sock) => {
    sock.on("error", () => sock.destroy());
    onSocket(sock);
  });
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return s;
}
const portOf = (s: Server) => (s.address() as { port: number }).port;

describe("egress: no sandbox starves the others", () => {
  let root: string;
  let rules: EgressRules;
  let provider: LocalSandboxProvider;
  let hold: Server;
  let good: Server;
  const held: Socket[] = [];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-quota-"));
    // A silent upstream the hostile sandbox tunnels to and keeps open, and a neighbour's ordinary server.
    hold = await listen((s) => (held.push(s), s.resume()));
    good = await listen((s) => s.once("data", () => s.end("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nfine\n")));
    rules = { ...githubApiRules(), allow: [portOf(hold), portOf(good)].map((port) => ({ address: "127.0.0.1", port })), maxConnectionsPerSandbox: QUOTA };
    provider = new LocalSandboxProvider({ root, execTimeoutMs: 60_000, maxOutputBytes: 1 << 20, egressPolicy: rules });
  });
  afterAll(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    egressGateway(root, rules).proxy.stop();
    for (const s of held) s.destroy();
    hold.close();
    good.close();
    await rm(root, { recursive: true, force: true });
  });

  it("a hostile sandbox holding its whole quota gets 429s past it, while its neighbour's requests go through", async () => {
    const hostile = await provider.create({ network: true });
    const neighbour = await provider.create({ network: true });
    // Twice its quota of tunnels, each held open 20 s with nothing sent; each prints the proxy's first line.
    const opener = `(exec 3<>/dev/tcp/127.0.0.1/$P && printf "CONNECT 127.0.0.1:${portOf(hold)} HTTP/1.1\\r\\n\\r\\n" >&3 && IFS= read -r -t 20 line <&3; echo "got:$line"; sleep 20) &`;
    const holding = hostile.exec(
      `bash <<'EOF'\nP=\${HTTP_PROXY##*:}\n${Array(QUOTA * 2)
        .fill(opener)
        .join("\n")}\nwait\nEOF`,
    );
    // While it holds them: the neighbour's parallel fetches (plain HTTP and tunnels) all succeed.
    await new Promise((r) => setTimeout(r, 3_000));
    const fetches = Array.from({ length: 4 }, (_, i) => `curl -sS --noproxy '' --max-time 10 ${i % 2 ? "-p " : ""}-x "$HTTP_PROXY" http://127.0.0.1:${portOf(good)}/ &`).join("\n");
    const n = await neighbour.exec(`${fetches}\nwait`);
    expect(n.stdout, n.stderr).toBe("fine\n".repeat(4));
    const lines = (await holding).stdout
      .trim()
      .split("\n")
      .map((l) => l.replace(/\r$/, ""));
    expect(
      lines.filter((l) => l === "got:HTTP/1.1 200 Connection Established"),
      lines.join("\n"),
    ).toHaveLength(QUOTA);
    expect(
      lines.filter((l) => l === "got:HTTP/1.1 429 Too Many Requests"),
      lines.join("\n"),
    ).toHaveLength(QUOTA);
    // Its quota frees up as its connections close.
    const again = await hostile.exec(`curl -sS --noproxy '' --max-time 10 -x "$HTTP_PROXY" http://127.0.0.1:${portOf(good)}/`);
    expect(again.stdout).toBe("fine\n");
  }, 60_000);
});

describe("egress proxy: idle and half-closed tunnels are torn down", () => {
  let dir: string;
  let proxy: HttpServer;
  let hold: Server;
  const upstream: Socket[] = [];
  const sock = () => join(dir, "p.sock");

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "osw-quiet-"));
    // An upstream that keeps its side open after the tunnel's FIN (allowHalfOpen): only the proxy can end it.
    hold = await listen((s) => (upstream.push(s), s.resume()), true);
    proxy = await startEgressProxy(sock(), { refuseHosts: [], allow: [{ address: "127.0.0.1", port: portOf(hold) }], maxConnectionsPerSandbox: 2 }, undefined, { quietMs: 400 });
  });
  afterAll(async () => {
    proxy.close();
    for (const s of upstream) s.destroy();
    hold.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A forwarder's connection: its preamble, then CONNECT; resolves with the socket and the proxy's first answer. */
  function tunnelFrom(id: string | null): Promise<{ s: Socket; answer: string; closed: Promise<number> }> {
    return new Promise((resolve, reject) => {
      const s = netConnect(sock());
      const started = Date.now();
      const closed = new Promise<number>((r) => s.once("close", () => r(Date.now() - started)));
      s.once("error", reject);
      s.once("connect", () => s.write(`${id ? `OSW-SANDBOX ${id}\n` : ""}CONNECT 127.0.0.1:${portOf(hold)} HTTP/1.1\r\n\r\n`));
      s.once("data", (d) => resolve({ s, answer: d.toString().split("\r\n")[0]!, closed }));
    });
  }

  it("a tunnel that carries no byte is closed after the quiet limit; one that carries bytes is not", async () => {
    const quiet = await tunnelFrom("sb-a");
    expect(quiet.answer).toBe("HTTP/1.1 200 Connection Established");
    const busy = await tunnelFrom("sb-b");
    busy.s.write("ping");
    const ms = await quiet.closed;
    expect(ms).toBeGreaterThanOrEqual(350);
    expect(ms).toBeLessThan(5_000);
    await new Promise((r) => setTimeout(r, 600));
    expect(busy.s.destroyed).toBe(false);
    busy.s.destroy();
  });

  it("a tunnel the sandbox half-closes is destroyed, upstream side too", async () => {
    const before = upstream.length;
    const t = await tunnelFrom("sb-c");
    t.s.write("hello");
    await new Promise((r) => setTimeout(r, 100));
    const up = upstream[before]!;
    const upEnded = new Promise<void>((r) => up.once("end", () => r()));
    t.s.end();
    await upEnded;
    // The half-open upstream never answers the FIN: the proxy tears the tunnel down itself.
    const ms = await Promise.race([t.closed, new Promise<number>((r) => setTimeout(() => r(-1), 3_000))]);
    expect(ms).toBeGreaterThan(0);
  });

  it("the quota counts per sandbox named by the forwarder; connections without a name count against none", async () => {
    const a = await tunnelFrom("sb-q");
    const b = await tunnelFrom("sb-q");
    const c = await tunnelFrom("sb-q");
    expect([a.answer, b.answer, c.answer]).toEqual(["HTTP/1.1 200 Connection Established", "HTTP/1.1 200 Connection Established", "HTTP/1.1 429 Too Many Requests"]);
    const other = await tunnelFrom("sb-r");
    expect(other.answer).toBe("HTTP/1.1 200 Connection Established");
    const anon = await Promise.all([tunnelFrom(null), tunnelFrom(null), tunnelFrom(null)]);
    expect(anon.map((t) => t.answer)).toEqual(Array(3).fill("HTTP/1.1 200 Connection Established"));
    // One closes: the sandbox may open another.
    a.s.destroy();
    await a.closed;
    await new Promise((r) => setTimeout(r, 50));
    expect((await tunnelFrom("sb-q")).answer).toBe("HTTP/1.1 200 Connection Established");
    for (const t of [b, c, other, ...anon]) t.s.destroy();
  });
});
