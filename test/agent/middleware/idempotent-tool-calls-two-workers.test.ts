import { afterEach, describe, expect, it } from "vitest";
import { connectRedis } from "../../../src/store/redis.js";
import { startFixture } from "../../helpers/fixture-process.js";
import { startPrivateRedis, type PrivateRedis } from "../../helpers/private-redis.js";

let redis: PrivateRedis | undefined;
afterEach(async () => {
  redis?.child.kill("SIGCONT");
  await redis?.kill();
  redis = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const execution = (name: string, holdMs: number, claimMs: number) =>
  startFixture("test/agent/middleware/fixtures/side-effect-worker.mts", [redis!.url, "idem2", name, String(holdMs), String(claimMs)]);

async function effects(): Promise<string[]> {
  const client = connectRedis(redis!.url);
  const list = await client.lrange("idem2:effects", 0, -1);
  await client.quit();
  return list;
}

// Two real processes on one tool call id: the job's execution that lost its lock while its PATCH was in
// flight (a), and the job's next execution reaching the same step from the checkpoint (b).
describe("a side-effecting tool call shared by two executions of one job", () => {
  it("the second execution waits for the first one's call in flight, through a Redis pause, and does not repeat it", async () => {
    redis = await startPrivateRedis();
    const a = execution("a", 2_500, 2_000);
    await a.until("claimed");
    const b = execution("b", 0, 2_000);
    await sleep(300);
    // Longer than a renewal period, shorter than the claim: the claim outlives the pause.
    redis.child.kill("SIGSTOP");
    await sleep(1_200);
    redis.child.kill("SIGCONT");
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
    expect(await effects()).toEqual(["a"]);
    expect(a.output()).toContain("result PR updated by a");
    expect(b.output()).toContain("result PR updated by a");
  }, 60_000);

  it("a claim whose execution died lapses: the next execution does the call (once) instead of waiting for ever", async () => {
    redis = await startPrivateRedis();
    const a = execution("a", 60_000, 1_000);
    await a.until("claimed");
    const b = execution("b", 0, 1_000);
    await sleep(300);
    a.child.kill("SIGKILL");
    expect(await b.exited).toBe(0);
    expect(b.output()).toContain("result PR updated by b");
    // a's outcome is unknown (it died mid-call): b did it again, as a resumed run always has.
    expect(await effects()).toEqual(["a", "b"]);
  }, 60_000);
});
