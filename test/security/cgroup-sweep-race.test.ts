import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, utimes } from "node:fs/promises";
import { afterAll, describe, expect, it } from "vitest";
import { detectCgroups, ensureSandboxCgroup, removeSandboxCgroup, sweepIdleCgroups, type CgroupSetup } from "../../src/sandbox/limits/cgroup.js";

const root0 = process.getuid?.() === 0;
const LIMITS = { memoryBytes: 256 << 20, pids: 77, cpus: 0.5 };
const newId = () => `local-${randomBytes(8).toString("hex")}`;

/**
 * Every worker sweeps idle sandbox cgroups when it starts, and removes the empty parents when a sandbox
 * goes. Racing another worker's cgroup setup, that removed the fresh, still-empty directory (or its empty
 * parent) between the mkdir and the limit writes: the exec failed ("cannot set up the sandbox's cgroups:
 * ENODEV") — or could have run without limits.
 */
describe.runIf(root0)("a cgroup sweep racing a sandbox's cgroup setup", () => {
  let setup: CgroupSetup | undefined;
  const ids: string[] = [];
  afterAll(async () => {
    if (setup) for (const id of ids) await removeSandboxCgroup(setup, id).catch(() => undefined);
  });

  it("every setup succeeds and, when it returns, the limits are written; leftovers older than the grace period still go", async () => {
    const found = await detectCgroups(`/osw-race-${randomBytes(4).toString("hex")}`);
    if (!found.ok) throw new Error(`cgroups not usable here: ${found.reason}`);
    setup = found.setup;
    const s = setup;
    let sweeping = true;
    const sweeper = (async () => {
      while (sweeping) {
        sweepIdleCgroups(s);
        await new Promise((r) => setTimeout(r, 0));
      }
    })();
    const failures: string[] = [];
    try {
      for (let i = 0; i < 60; i++) {
        const id = newId();
        ids.push(id);
        try {
          await ensureSandboxCgroup(s, id, LIMITS);
        } catch (err) {
          failures.push(String(err));
          continue;
        }
        for (const [c, file] of [
          ["pids", "pids.max"],
          ["memory", "memory.limit_in_bytes"],
        ] as const) {
          const path = `${s.parents[c]}/${id}/${s.version === 2 ? (c === "memory" ? "memory.max" : file) : file}`;
          expect(existsSync(path), path).toBe(true);
          expect(readFileSync(path, "utf8").trim()).toBe(String(c === "pids" ? LIMITS.pids : LIMITS.memoryBytes));
        }
        // Removing it also removes the empty parents: the next setup races that too.
        await removeSandboxCgroup(s, id);
      }
    } finally {
      sweeping = false;
      await sweeper;
    }
    expect(failures).toEqual([]);

    // A leftover from a dead worker (old, no process) is still swept.
    const leftover = newId();
    ids.push(leftover);
    const dir = `${s.parents.pids}/${leftover}`;
    await mkdir(dir, { recursive: true });
    const old = new Date(Date.now() - 3_600_000);
    await utimes(dir, old, old);
    sweepIdleCgroups(s);
    expect(existsSync(dir)).toBe(false);
  });
});
