// Attacks on a local sandbox's command server (one bubblewrap kept per sandbox, each command a fork in
// it) from the commands it runs: kill it, stop it, leave processes or files behind it. Each must end in a
// result that says what happened, never a hung or crashed worker, and the next command must work.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";

describe("a sandbox's command server under attack from its own commands", () => {
  let root: string;
  let provider: LocalSandboxProvider;
  let sb: LocalSandbox;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-cmdsrv-"));
    provider = new LocalSandboxProvider({ root, execTimeoutMs: 20_000, maxOutputBytes: 1 << 16 });
    sb = await provider.create({ network: false });
  });
  // Until its server is up a sandbox runs commands one bubblewrap each: these attacks are on the server.
  beforeEach(async () => {
    expect(await sb.startCommandServer()).toBe(true);
  });
  afterAll(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(root, { recursive: true, force: true });
  });

  it("commands are forks of one kept server: the same parent, and the same sandbox pid namespace", async () => {
    const a = (await sb.exec("echo $PPID")).stdout.trim();
    const b = (await sb.exec("echo $PPID")).stdout.trim();
    expect(a).toMatch(/^\d+$/);
    expect(b).toBe(a);
  });

  it("a command that kills its server ends with 137 and the cause; the next command starts a new server", async () => {
    // The server's start time (its pid in the sandbox is always 2: bubblewrap's init is 1).
    const started = "cut -d' ' -f22 /proc/$PPID/stat";
    const first = (await sb.exec(started)).stdout.trim();
    const r = await sb.exec("echo before; kill -9 $PPID; sleep 5; echo after");
    expect(r.exitCode).toBe(137);
    expect(r.stdout).not.toContain("after");
    expect(r.stderr).toMatch(/open-swe: the sandbox's command server stopped while the command ran/);
    expect(await sb.startCommandServer()).toBe(true);
    const next = await sb.exec(`${started}; echo ok`);
    expect(next).toMatchObject({ exitCode: 0 });
    expect(next.stdout).toMatch(/^\d+\nok\n$/);
    expect(next.stdout.split("\n")[0]).not.toBe(first);
  });

  it("a command that stops its server (SIGSTOP) times out (124) once the server is replaced; the next command works", async () => {
    const started = Date.now();
    const r = await sb.exec("kill -STOP $PPID; echo never", { timeoutMs: 800 });
    expect(r).toMatchObject({ timedOut: true, exitCode: 124 });
    expect(r.stderr).toMatch(/command server did not stop a timed-out command/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await sb.exec("echo ok")).stdout).toBe("ok\n");
  });

  it("a process a command leaves behind, even in a session of its own, is killed when the command ends", async () => {
    const r = await sb.exec("setsid sh -c 'sleep 1.5; touch late' </dev/null >/dev/null 2>&1 & sleep 0.2; echo left");
    expect(r.stdout).toBe("left\n");
    await new Promise((res) => setTimeout(res, 2_500));
    expect(existsSync(join(sb.hostWorkspace, "late"))).toBe(false);
    expect((await sb.exec("ps -e -o comm= | grep -c sleep || true")).stdout.trim()).toBe("0");
  });

  it("while another command runs, a finished command's process group is still ended at once", async () => {
    const long = sb.exec("sleep 5; echo long-done");
    const r = await sb.exec("(sleep 2; touch group-late) & echo quick");
    expect(r.stdout).toBe("quick\n");
    await new Promise((res) => setTimeout(res, 2_500));
    expect(existsSync(join(sb.hostWorkspace, "group-late"))).toBe(false);
    expect((await long).stdout).toBe("long-done\n");
  });

  it("/tmp and /dev/shm are empty again for the next command", async () => {
    await sb.exec("echo x > /tmp/left && echo y > /dev/shm/left");
    expect((await sb.exec("ls -A /tmp /dev/shm")).stdout).not.toContain("left");
  });

  it("what a command leaves in /tmp is removed, never followed: links into the workspace take nothing of it, and directories it locked go too", async () => {
    const left = await sb.exec(
      'mkdir -p keep && echo x > keep/file && ln -s "$PWD/keep" /tmp/link && ln -s "$PWD/keep/file" /tmp/flink && mkdir -p /tmp/d && ln -s "$PWD/keep" /tmp/d/inner && mkdir -p /tmp/locked/sub && touch /tmp/locked/sub/f && chmod 000 /tmp/locked/sub /tmp/locked && ln -s "$PWD/keep" /dev/shm/link',
    );
    expect(left).toMatchObject({ exitCode: 0 });
    expect((await sb.exec("ls -A /tmp /dev/shm; cat keep/file")).stdout).toBe("/dev/shm:\n\n/tmp:\nx\n");
  });

  it("destroy stops the server with the sandbox", async () => {
    const other = await provider.create({ network: false });
    expect(await other.startCommandServer()).toBe(true);
    const slow = other.exec("touch running; sleep 10");
    while (!existsSync(join(other.hostWorkspace, "running"))) await new Promise((res) => setTimeout(res, 20));
    await provider.destroy(other.id);
    const r = await slow;
    expect(r.exitCode).toBe(137);
  });
});
