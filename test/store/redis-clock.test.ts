import { testSigner } from "../helpers/job-signer.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { QueueSet } from "../../src/queue/queues.js";
import { redisNowMs } from "../../src/shared/redis-time.js";
import { checkClock, clockSkewProblem, measureClockSkew } from "../../src/store/redis-clock.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";
import { findJob } from "../helpers/jobs.js";

afterEach(() => vi.restoreAllMocks());

describe("one clock: Redis's", () => {
  it.each([
    [0, null],
    [30_000, null],
    [-30_000, null],
    [30_001, "this host's clock is 30 s ahead of Redis's (more than 30 s)"],
    [-95_000, "this host's clock is 1 min 35 s behind Redis's (more than 30 s)"],
    [2 * 3600_000, "this host's clock is 2 h 0 min ahead of Redis's (more than 30 s)"],
  ])("skew %i ms → %s", (skew, start) => {
    const problem = clockSkewProblem(skew);
    if (start === null) expect(problem).toBeNull();
    else expect(problem).toMatch(new RegExp(`^${start.replace(/[()]/g, "\\$&")}: .*sync the host's clock \\(NTP\\)$`));
  });

  it("measures this host's clock against Redis TIME (a clock 2 h fast reads as +2 h)", async () => {
    const redis = testRedis();
    expect(Math.abs(await measureClockSkew(redis))).toBeLessThan(1_000);
    const skew = await measureClockSkew(redis, () => Date.now() + 7_200_000);
    expect(Math.abs(skew - 7_200_000)).toBeLessThan(1_000);
  });

  it("a worker refuses to start past the limit; a running one re-checks and logs one line each time it has drifted", async () => {
    const redis = testRedis();
    await expect(checkClock(redis, { error: () => undefined }, 60_000, () => Date.now() - 45_000)).rejects.toMatchObject({ code: "clock_skew" });
    let offset = 0;
    const logged: string[] = [];
    const stop = await checkClock(redis, { error: (_: unknown, msg?: string) => void logged.push(msg ?? "") }, 40, () => Date.now() + offset);
    await new Promise((r) => setTimeout(r, 120));
    expect(logged).toEqual([]);
    offset = 3_600_000;
    for (let i = 0; logged.length === 0 && i < 100; i++) await new Promise((r) => setTimeout(r, 20));
    stop();
    expect(logged[0]).toMatch(/^this host's clock is 1 h 0 min ahead of Redis's/);
  });

  it("a delayed job is due `delay` after Redis's now, not after this host's (a host 1 h slow)", async () => {
    const redis = testRedis();
    const queues = new QueueSet({ connection: redis, prefix: uniquePrefix(), attempts: 1, signer: testSigner() });
    const real = Date.now.bind(Date);
    vi.spyOn(Date, "now").mockImplementation(() => real() - 3_600_000);
    await queues.add("cleanup", { kind: "sweep" }, "clock-delayed", { delay: 60_000, via: "system:sandbox-sweep" });
    const job = await findJob(queues.queues.cleanup, "clock-delayed");
    expect(Math.abs(job!.timestamp - (await redisNowMs(redis)))).toBeLessThan(2_000);
    vi.restoreAllMocks();
    await queues.close();
  });
});
