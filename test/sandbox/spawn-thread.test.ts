import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runProcess } from "../../src/sandbox/run-process.js";
import { spawnThread } from "../../src/sandbox/spawn-thread.js";

const env = { PATH: "/usr/bin:/bin" };
const gone = (pid: number) => {
  try {
    process.kill(-pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
};
/** No live process is left in the group (the killed leader stays a zombie when its thread is gone: nobody reaps it). */
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

describe("runProcess on the spawn thread", () => {
  it("forks away from the caller's event loop: no child process handle lives on it while the command runs", async () => {
    let pid = 0;
    const run = runProcess("sh", ["-c", "sleep 0.5; echo done"], { env, maxOutputBytes: 1024, onSpawn: (p) => (pid = p) });
    expect(await until(() => pid > 0)).toBe(true);
    expect(process.getActiveResourcesInfo()).not.toContain("ProcessWrap");
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

  it("a spawn thread that dies fails its runs with the cause, ends their process groups, and the next run gets a new thread", async () => {
    let pid = 0;
    const exited: number[] = [];
    const run = runProcess("sh", ["-c", "sleep 30 & sleep 30"], { env, maxOutputBytes: 1024, onSpawn: (p) => (pid = p), onExit: (p) => exited.push(p) });
    expect(await until(() => pid > 0)).toBe(true);
    await spawnThread().stop();
    await expect(run).rejects.toMatchObject({ code: "SPAWN_THREAD_EXITED" });
    expect(exited).toEqual([pid]);
    expect(await until(() => groupDead(pid))).toBe(true);
    const next = await runProcess("echo", ["again"], { env, maxOutputBytes: 1024 });
    expect(next.stdout.toString()).toBe("again\n");
  });
});
