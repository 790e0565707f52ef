import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { startEmbeddedRedis, type EmbeddedRedis } from "../../src/store/embedded-redis.js";
import { connectRedis } from "../../src/store/redis.js";
import { fixtureArgs } from "../helpers/fixture-command.js";
import { ROOT } from "../helpers/paths.js";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const started: EmbeddedRedis[] = [];
const orphans: number[] = [];
afterEach(async () => {
  for (const pid of orphans.splice(0)) if (alive(pid)) process.kill(pid, "SIGKILL");
  await Promise.all(started.splice(0).map((e) => e.stop()));
});

describe("embedded redis-server", () => {
  it("exits with its owner, even when the owner is killed with SIGKILL", async () => {
    const data = mkdtempSync(join(tmpdir(), "osw-embedded-"));
    const owner = spawn(process.execPath, [...(await fixtureArgs(join(ROOT, "test/fixtures/embedded-redis-owner.ts"))), data], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    owner.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    await until(() => /redis-pid (\d+)/.test(out) || owner.exitCode !== null, "the owner to start redis", 20_000);
    const pid = Number(/redis-pid (\d+)/.exec(out)![1]);
    orphans.push(pid);
    expect(alive(pid)).toBe(true);
    owner.kill("SIGKILL");
    await until(() => !alive(pid), "redis-server to exit after its owner", 5_000);
  });

  it("is restarted when it dies while the app runs, and clients reconnect", async () => {
    const lines: Array<{ msg: string }> = [];
    const embedded = await startEmbeddedRedis(mkdtempSync(join(tmpdir(), "osw-embedded-")), createLogger("info", "t", { write: (l: string) => void lines.push(JSON.parse(l)) }));
    started.push(embedded);
    const client = connectRedis(embedded.url);
    client.on("error", () => {});
    await client.set("k", "v");
    const first = embedded.pid()!;
    process.kill(first, "SIGKILL");
    await until(() => embedded.pid() !== undefined && embedded.pid() !== first, "a new redis-server");
    await until(async () => (await client.ping().catch(() => "")) === "PONG", "the client to reconnect");
    expect(lines.map((l) => l.msg)).toContain("embedded redis-server exited: restarting it");
    client.disconnect();
  });
});
