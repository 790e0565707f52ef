import { createServer, type Server } from "node:net";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";

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
    server = createServer((s) => s.end("hi from host\n"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    server.close();
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
      const names = r.stdout.trim().split("\n").map((l) => l.split("=")[0]).sort();
      expect(names).toEqual(["HOME", "LANG", "PATH", "PWD", "TERM"]);
    } finally {
      delete process.env.OSW_WORKER_ONLY_SECRET;
    }
  });

  it("cannot open a socket when network is off, can when it is on", async () => {
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3`;
    const off = await sb.exec(`bash -c '${probe}'`);
    expect(off.exitCode).not.toBe(0);
    expect(off.stdout).not.toContain("hi from host");
    const on = await netSb.exec(`bash -c '${probe}'`);
    expect(on.stdout).toBe("hi from host\n");
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
    await mkdir(join(root, "unused"), { recursive: true });
  });
});
