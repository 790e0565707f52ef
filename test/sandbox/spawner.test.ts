import { closeSync, openSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runProcess } from "../../src/sandbox/run-process.js";
import { spawner } from "../../src/sandbox/spawner.js";

const env = { PATH: "/usr/bin:/bin" };
const gone = (pid: number) => {
  try {
    process.kill(-pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
};
/** No live process is left in the group (a killed leader may linger a moment as a zombie). */
const groupDead = (pgid: number) =>
  readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .every((n) => {
      try {
        const stat = readFileSync(`/proc/${n}/stat`, "utf8");
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return Number(pgrp) !== pgid || state === "Z";
      } catch {
        return true;
      }
    });
const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  return ok();
};

describe("runProcess through the spawner process", () => {
  it("forks in the spawner, not on the caller's event loop: the command is the spawner's child", async () => {
    // Waits for the spawn itself, however long a first spawner start takes on a busy machine.
    let spawned: (pid: number) => void = () => undefined;
    const started = new Promise<number>((resolve) => (spawned = resolve));
    const run = runProcess("sh", ["-c", "sleep 0.5; echo done"], { env, maxOutputBytes: 1024, onSpawn: (p) => spawned(p) });
    const pid = await started;
    const ppid = Number(/^PPid:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);
    expect(ppid).not.toBe(process.pid);
    expect(ppid).toBe(spawner().pid());
    const r = await run;
    expect(r).toMatchObject({ exitCode: 0, timedOut: false });
    expect(r.stdout.toString()).toBe("done\n");
  });

  it("keeps the caller's streams for a child it talks to (onChild): that one is spawned on the caller's loop", async () => {
    let seen: string[] = [];
    const r = await runProcess("cat", [], { env, maxOutputBytes: 1024, stdinStream: true, onChild: (c) => ((seen = process.getActiveResourcesInfo()), c.stdin!.end("hi")) });
    expect(seen).toContain("ProcessWrap");
    expect(r.stdout.toString()).toBe("hi");
  });

  it("passes stdin, caps output, reports exit codes and spawn errors with their code", async () => {
    const r = await runProcess("sh", ["-c", "cat; head -c 5000 /dev/zero >&2; exit 3"], { env, maxOutputBytes: 100, stdin: Buffer.from("in") });
    expect(r.exitCode).toBe(3);
    expect(r.stdout.toString()).toBe("in");
    expect(r.stderr.length).toBe(100);
    expect(r.truncated).toBe(true);
    await expect(runProcess("/nonexistent/tool", [], { env, maxOutputBytes: 10 })).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("an abort from the caller kills the whole process group", async () => {
    const ac = new AbortController();
    let pid = 0;
    const run = runProcess("sh", ["-c", "sleep 30 & sleep 30"], { env, maxOutputBytes: 1024, signal: ac.signal, onSpawn: (p) => (pid = p) });
    expect(await until(() => pid > 0)).toBe(true);
    ac.abort();
    expect(await run).toMatchObject({ timedOut: true, exitCode: 124 });
    expect(await until(() => gone(pid))).toBe(true);
  });

  it("a spawner that dies fails its runs with the cause, ends their process groups, and the next run gets a new spawner", async () => {
    let pid = 0;
    const exited: number[] = [];
    const run = runProcess("sh", ["-c", "sleep 30 & sleep 30"], { env, maxOutputBytes: 1024, onSpawn: (p) => (pid = p), onExit: (p) => exited.push(p) });
    expect(await until(() => pid > 0)).toBe(true);
    const first = spawner().pid();
    spawner().stop();
    await expect(run).rejects.toMatchObject({ code: "SPAWNER_EXITED" });
    expect(exited).toEqual([pid]);
    expect(await until(() => groupDead(pid))).toBe(true);
    const next = await runProcess("echo", ["again"], { env, maxOutputBytes: 1024 });
    expect(next.stdout.toString()).toBe("again\n");
    expect(spawner().pid()).not.toBe(first);
  });

  it("hands the child the worker's descriptors it names (a namespace, a filter): opened anew through /proc", async () => {
    const fd = openSync("/proc/self/ns/net", "r");
    try {
      const r = await runProcess("readlink", ["/proc/self/fd/3"], { env, maxOutputBytes: 1024, extraFds: [fd] });
      expect(r.stdout.toString().trim()).toBe(readlinkSync(`/proc/self/fd/${fd}`));
    } finally {
      closeSync(fd);
    }
  });
});
