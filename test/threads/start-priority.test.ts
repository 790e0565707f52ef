import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StartPriority } from "../../src/threads/start-priority.js";

/** Whether `p` has settled after the timers have run `ms` further. */
async function settledAfter(p: Promise<void>, ms: number): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(ms);
  return done;
}

describe("StartPriority: runs under way yield to runs starting on the same worker", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it.each([
    { case: "nothing is starting", maxHoldMs: 1000, starting: 0, settlesAt: 0 },
    { case: "a run is starting: held until the cap", maxHoldMs: 1000, starting: 1, settlesAt: 1000 },
    { case: "two are starting: the same cap, not one per run", maxHoldMs: 300, starting: 2, settlesAt: 300 },
    { case: "0 turns it off", maxHoldMs: 0, starting: 1, settlesAt: 0 },
  ])("$case", async ({ maxHoldMs, starting, settlesAt }) => {
    const priority = new StartPriority(maxHoldMs);
    for (let i = 0; i < starting; i++) priority.begin();
    const held = priority.yieldToStarting();
    if (settlesAt > 0) expect(await settledAfter(held, settlesAt - 1)).toBe(false);
    expect(await settledAfter(held, 1)).toBe(true);
  });

  it("wakes the held runs when the last starting run ends, not before; ending twice counts once", async () => {
    const priority = new StartPriority(60_000);
    const first = priority.begin();
    const second = priority.begin();
    const held = [priority.yieldToStarting(), priority.yieldToStarting()];
    first();
    first();
    expect(priority.starting).toBe(1);
    expect(
      await settledAfter(
        Promise.all(held).then(() => undefined),
        10,
      ),
    ).toBe(false);
    second();
    expect(priority.starting).toBe(0);
    expect(
      await settledAfter(
        Promise.all(held).then(() => undefined),
        0,
      ),
    ).toBe(true);
  });

  it("a run counts as starting for at most 5 × maxHoldMs: a long set-up does not hold the others all along", async () => {
    const priority = new StartPriority(100);
    priority.begin();
    for (let i = 0; i < 4; i++) expect(await settledAfter(priority.yieldToStarting(), 100)).toBe(true);
    await vi.advanceTimersByTimeAsync(50);
    expect(priority.starting).toBe(1);
    // Held at 450 ms: the cap would end it at 550, the start's expiry at 500 does.
    const last = priority.yieldToStarting();
    expect(await settledAfter(last, 49)).toBe(false);
    expect(await settledAfter(last, 1)).toBe(true);
    expect(priority.starting).toBe(0);
    expect(await settledAfter(priority.yieldToStarting(), 0)).toBe(true);
  });

  it("an aborted run stops waiting at once, and one already aborted never waits", async () => {
    const priority = new StartPriority(60_000);
    priority.begin();
    const stop = new AbortController();
    const held = priority.yieldToStarting(stop.signal);
    expect(await settledAfter(held, 10)).toBe(false);
    stop.abort();
    expect(await settledAfter(held, 0)).toBe(true);
    expect(await settledAfter(priority.yieldToStarting(stop.signal), 0)).toBe(true);
  });
});
