import { afterEach, describe, expect, it } from "vitest";
import { connectRedis } from "../../src/store/redis.js";
import { FollowUpQueue } from "../../src/threads/follow-ups.js";
import { startFixture } from "../helpers/fixture-process.js";
import { startPrivateRedis, type PrivateRedis } from "../helpers/private-redis.js";
import { testSigner } from "../helpers/job-signer.js";

let redis: PrivateRedis | undefined;
afterEach(async () => {
  await redis?.kill();
  redis = undefined;
});

describe("a thread's follow-ups with two worker processes and a Redis that stops", () => {
  it("every message pushed is drained exactly once, across both workers and the pause", async () => {
    redis = await startPrivateRedis();
    const prefix = "fu2";
    const count = 150;
    const worker = (name: string) => startFixture("test/threads/fixtures/follow-up-worker.mts", [redis!.url, prefix, name, String(count)]);
    const a = worker("a");
    const b = worker("b");
    // Mid-way, Redis stops answering for a while (SIGSTOP), then goes on.
    await Promise.all([a.until("drained"), b.until("drained")]);
    redis.child.kill("SIGSTOP");
    await new Promise((r) => setTimeout(r, 1500));
    redis.child.kill("SIGCONT");
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
    const client = connectRedis(redis.url);
    const rest = (await new FollowUpQueue(client, prefix, 10_000, testSigner()).drain("0b7c5a2e-6f1d-5c3e-8a9b-1c2d3e4f5a6b")).map((i) => i.text);
    await client.quit();
    const drained = [...a.output().matchAll(/^drained (\S+)$/gm), ...b.output().matchAll(/^drained (\S+)$/gm)].map((m) => m[1]!).concat(rest);
    const pushed = ["a", "b"].flatMap((n) => Array.from({ length: count }, (_, i) => `${n}-${i}`));
    expect(drained.length).toBe(pushed.length);
    expect(new Set(drained)).toEqual(new Set(pushed));
  }, 90_000);

  it("at the cap, two workers pushing at once queue exactly the cap between them, and each refused push is told so", async () => {
    redis = await startPrivateRedis();
    const prefix = "fu2cap";
    const worker = (name: string) => startFixture("test/threads/fixtures/follow-up-worker.mts", [redis!.url, prefix, name, "40", "25", "push-only"], { stdin: true });
    const a = worker("a");
    const b = worker("b");
    await Promise.all([a.until("ready"), b.until("ready")]);
    // Redis stops while both start pushing: their pushes pile up and reach it together when it goes on.
    redis.child.kill("SIGSTOP");
    a.child.stdin!.end("go\n");
    b.child.stdin!.end("go\n");
    await new Promise((r) => setTimeout(r, 1000));
    redis.child.kill("SIGCONT");
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
    const said = (word: string) => [...a.output().matchAll(new RegExp(`^${word} (\\S+)$`, "gm")), ...b.output().matchAll(new RegExp(`^${word} (\\S+)$`, "gm"))].map((m) => m[1]!);
    const client = connectRedis(redis.url);
    const kept = (await new FollowUpQueue(client, prefix, 25, testSigner()).drain("0b7c5a2e-6f1d-5c3e-8a9b-1c2d3e4f5a6b")).map((i) => i.text);
    await client.quit();
    expect(kept).toHaveLength(25);
    expect(new Set(kept)).toEqual(new Set(said("queued")));
    expect(said("refused")).toHaveLength(80 - 25);
  }, 90_000);
});
