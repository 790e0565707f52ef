import { afterEach, describe, expect, it } from "vitest";
import { RunIndex } from "../../src/store/run-index.js";
import { connectRedis } from "../../src/store/redis.js";
import { startFixture } from "../helpers/fixture-process.js";
import { startPrivateRedis, type PrivateRedis } from "../helpers/private-redis.js";

let redis: PrivateRedis | undefined;
afterEach(async () => {
  await redis?.kill();
  redis = undefined;
});

describe("a run's index entry patched by two processes at once", () => {
  it("neither process's patch undoes the other's: each field ends at its writer's last value and never goes back", async () => {
    redis = await startPrivateRedis();
    const client = connectRedis(redis.url);
    const index = new RunIndex(client, "ri2");
    await index.put({ runId: "run-1", repo: "octo/hello", threadId: "t-1", trigger: "comment", source: "github", requester: "dana", title: "", status: "running", queuedAt: Date.now() });
    const count = 400;
    const writer = (name: "a" | "b") => startFixture("test/store/fixtures/run-index-updater.mts", [redis!.url, "ri2", "run-1", name, String(count)], { stdin: true });
    const a = writer("a");
    const b = writer("b");
    await Promise.all([a.until("ready"), b.until("ready")]);
    a.child.stdin!.end("go\n");
    b.child.stdin!.end("go\n");
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
    const entry = await index.get("run-1");
    await client.quit();
    expect(a.output().match(/^lost .*$/gm) ?? []).toEqual([]);
    expect(b.output().match(/^lost .*$/gm) ?? []).toEqual([]);
    expect(entry).toMatchObject({ stoppedBy: `a-${count - 1}`, title: `b-${count - 1}`, status: "running" });
  }, 60_000);
});
