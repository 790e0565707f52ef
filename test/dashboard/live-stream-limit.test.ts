import { describe, expect, it } from "vitest";
import { LiveStreamLimit, liveStreamDecision } from "../../src/dashboard/live-stream-limit.js";

describe("liveStreamDecision", () => {
  const limits = { perSession: 2, perAddress: 3 };
  it.each([
    [{ session: 0, address: 0 }, null],
    [{ session: 1, address: 2 }, null],
    [{ session: 2, address: 2 }, /this session already has 2 live views open \(at most 2\)/],
    [{ session: 0, address: 3 }, /your address already has 3 live views open \(at most 3\)/],
    [{ session: 5, address: 9 }, /this session/],
  ] as const)("%o → %s", (held, want) => {
    const got = liveStreamDecision(held, limits);
    if (want === null) expect(got).toBeNull();
    else expect(got).toMatch(want);
  });
});

describe("LiveStreamLimit", () => {
  it("counts per session and address, and a grant released twice frees one place", () => {
    const limit = new LiveStreamLimit({ perSession: 1, perAddress: 2 });
    const a = limit.acquire("s1", "10.0.0.1");
    expect(a.ok).toBe(true);
    expect(limit.acquire("s1", "10.0.0.1").ok).toBe(false);
    const b = limit.acquire("s2", "10.0.0.1");
    expect(b.ok).toBe(true);
    expect(limit.acquire("s3", "10.0.0.1").ok).toBe(false);
    expect(limit.acquire("s3", "10.0.0.2").ok).toBe(true);
    if (a.ok) {
      a.release();
      a.release();
    }
    expect(limit.acquire("s1", "10.0.0.1").ok).toBe(true);
    expect(limit.acquire("s4", "10.0.0.1").ok).toBe(false);
  });
});
