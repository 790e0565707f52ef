import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { startProcess, type RunningProcess } from "../../src/main.js";
import { spawner } from "../../src/sandbox/spawner.js";
import { testConfig } from "../helpers/github-app.js";
import { uniquePrefix } from "../helpers/redis.js";

const procs: RunningProcess[] = [];
afterAll(async () => {
  for (const p of procs) await p.stop();
});

const alive = (pid: number | undefined) => {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("the worker starts its spawner when it starts, not on its first command", () => {
  it("a web process has none; a worker has one running as soon as it is up, and its start line says how it runs", async () => {
    // A vendor sandbox: the start-up isolation check runs no host command, so only the start itself can have started it.
    const env = { SANDBOX_TYPE: "e2b", E2B_API_KEY: "e2b_test", QUEUE_PREFIX: uniquePrefix() };
    procs.push(await startProcess({ role: "web", config: testConfig(env), log: createLogger("silent"), port: 0, host: "127.0.0.1" }));
    expect(spawner().pid()).toBeUndefined();
    const lines: string[] = [];
    const log = createLogger("info", "open-swe", { write: (l: string) => void lines.push(l) });
    procs.push(await startProcess({ role: "worker", config: testConfig(env), log, queues: [] }));
    expect(alive(spawner().pid())).toBe(true);
    const started = lines.map((l) => JSON.parse(l) as { msg: string; runtime?: string }).find((l) => l.msg === "worker role started");
    expect(started?.runtime).toBe("src/ through tsx (npm run build, or npm start, compiles dist/)");
  });
});
