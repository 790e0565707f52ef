import { createServer, type Server } from "node:http";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { egressGateway, ensureForwarder } from "../../src/sandbox/providers/egress-netns.js";
import { githubApiRules } from "../../src/sandbox/providers/egress-policy.js";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";
import { viaProxy } from "../helpers/proxy-request.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, ms = 3_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("local provider isolation", () => {
  let root: string;
  let home: string;
  let secretPath: string;
  let provider: LocalSandboxProvider;
  let sb: LocalSandbox;
  let netSb: LocalSandbox;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-iso-"));
    home = await mkdtemp(join(tmpdir(), "osw-home-"));
    secretPath = join(home, ".secret-token");
    await writeFile(secretPath, "s3cr3t-worker-credential\n", { mode: 0o600 });
    provider = new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes: 1 << 20 });
    sb = await provider.create({ network: false });
    netSb = await provider.create({ network: true });
    server = createServer((_req, res) => res.end("hi from host\n"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    server.close();
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(root, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  it("cannot read a file outside the workspace that the worker can read", async () => {
    expect(await readFile(secretPath, "utf8")).toContain("s3cr3t");
    const r = await sb.exec(`cat ${secretPath}; ls /root; ls /home; ls ${home}`);
    expect(r.exitCode).not.toBe(0);
    expect(r.stdout).not.toContain("s3cr3t");
    expect(r.stderr).toContain("No such file or directory");
    // /etc is a minimal allow-list: shadow and the host's git credential config are not there.
    expect((await sb.exec("test -e /etc/shadow || test -e /etc/gitconfig")).exitCode).toBe(1);
  });

  it("does not leak the secret through a planted symlink on download or upload", async () => {
    await sb.exec(`ln -s ${secretPath} leak; ln -s ${home} leakdir`);
    const [down] = await sb.download(["leak"]);
    expect(down).toMatchObject({ content: null, error: "permission_denied" });
    const [up] = await sb.upload([{ path: "leakdir/planted", content: new Uint8Array([1]) }]);
    expect(up?.error).toBe("permission_denied");
    expect(existsSync(join(home, "planted"))).toBe(false);
    expect((await sb.download(["../../etc/passwd"]))[0]?.error).toBe("invalid_path");
  });

  it("does not see the worker's environment", async () => {
    process.env.OSW_WORKER_ONLY_SECRET = "worker-env-value";
    try {
      const r = await sb.exec("env");
      expect(r.stdout).not.toContain("worker-env-value");
      const names = r.stdout
        .trim()
        .split("\n")
        .map((l) => l.split("=")[0])
        .sort();
      expect(names).toEqual(["HOME", "LANG", "PATH", "PWD", "TERM"]);
    } finally {
      delete process.env.OSW_WORKER_ONLY_SECRET;
    }
  });

  it("cannot open a socket when network is off", async () => {
    const off = await sb.exec(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}' && echo connected`);
    expect(off.exitCode).not.toBe(0);
    expect(off.stdout).toBe("");
  });

  const get = (path: string) => viaProxy(`GET http://127.0.0.1:${port}${path} HTTP/1.0\\r\\n\\r\\n`);
  const tunnel = (path: string) => viaProxy(`CONNECT 127.0.0.1:${port} HTTP/1.1\\r\\n\\r\\nGET ${path} HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n`);

  it("with network on, egress goes only through the filtering proxy: the host's loopback is out of reach", async () => {
    const raw = await netSb.exec(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}' && echo connected`);
    expect(raw.stdout).toBe("");
    const plain = await netSb.exec(get("/"));
    expect(plain.stdout).toMatch(/^HTTP\/1\.1 403/);
    const connect = await netSb.exec(tunnel("/"));
    expect(connect.stdout).toMatch(/^HTTP\/1\.1 403/);
    expect(plain.stdout + connect.stdout).not.toContain("hi from host");
  });

  it("with network on, allowed destinations work over plain HTTP and CONNECT tunnels", async () => {
    const allowPort = new LocalSandboxProvider({
      root,
      execTimeoutMs: 10_000,
      maxOutputBytes: 1 << 20,
      egressPolicy: { ...githubApiRules(), allow: [{ address: "127.0.0.1", port }] },
    });
    const open = await allowPort.create({ network: true });
    expect((await open.exec(get("/plain"))).stdout).toMatch(/^HTTP\/1\.1 200[\s\S]*hi from host\n$/);
    expect((await open.exec(tunnel("/tunnel"))).stdout).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200[\s\S]*hi from host\n$/);
    const elsewhere = await open.exec(viaProxy("GET http://127.0.0.1:1/ HTTP/1.0\\r\\n\\r\\n"));
    expect(elsewhere.stdout).toMatch(/^HTTP\/1\.1 403/);
    await allowPort.destroy(open.id);
  });

  it("the namespace's forwarder dies with the worker (stdin closed) and on destroy; the next exec starts a new one", async () => {
    const gw = egressGateway(root);
    await netSb.exec("true");
    const first = await ensureForwarder(gw, netSb.id);
    expect(alive(first.pid)).toBe(true);
    first.child.stdin!.destroy();
    await waitFor(() => !alive(first.pid));
    const again = await netSb.exec(get("/"));
    expect(again.stdout).toMatch(/^HTTP\/1\.1 403/);
    const second = await ensureForwarder(gw, netSb.id);
    expect(second.pid).not.toBe(first.pid);
    const throwaway = await provider.create({ network: true });
    await throwaway.exec("true");
    const third = await ensureForwarder(gw, throwaway.id);
    await provider.destroy(throwaway.id);
    await waitFor(() => !alive(third.pid));
  });

  it("egress 'host' (opt-in, trusted code only) shares the host network", async () => {
    const hostNet = new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes: 1 << 20, egress: "host" });
    const shared = await hostNet.create({ network: true });
    const r = await shared.exec(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && printf "GET / HTTP/1.0\\r\\n\\r\\n" >&3 && timeout 20 cat <&3'`);
    expect(r.stdout).toMatch(/hi from host\n$/);
    await hostNet.destroy(shared.id);
  });

  it("cannot write outside the workspace; the host is read-only and /tmp is private", async () => {
    const target = join(home, "escape.txt");
    for (const cmd of [`echo x > ${target}`, "echo y > /usr/escape", "echo z > /etc/escape", "touch /escape", "mkdir /opt2"]) {
      const r = await sb.exec(cmd);
      expect(r.exitCode, cmd).not.toBe(0);
      expect(r.stderr, cmd).toMatch(/Read-only file system|No such file or directory|Directory nonexistent/);
    }
    expect(existsSync(target) || existsSync("/usr/escape") || existsSync("/etc/escape") || existsSync("/escape")).toBe(false);
    const marker = `osw-private-${Date.now()}`;
    await sb.exec(`touch /tmp/${marker}`);
    expect(existsSync(join("/tmp", marker))).toBe(false);
    expect((await sb.exec("echo ok > inside.txt && cat inside.txt")).stdout).toBe("ok\n");
  });

  it("runs as an unprivileged user in its own pid namespace", async () => {
    const r = await sb.exec("id -u; grep CapEff /proc/self/status; ps -e -o pid= | wc -l");
    const [uid, cap, procs] = r.stdout.trim().split("\n");
    expect(uid).toBe("1000");
    expect(cap).toMatch(/CapEff:\s+0+$/);
    expect(Number(procs)).toBeLessThan(6);
  });
});
