import { describe, expect, it } from "vitest";
import { SideEffectLedger } from "../../src/store/side-effects.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

describe("SideEffectLedger", () => {
  it("claim: exactly one of many concurrent callers (separate connections) wins, before any effect runs", async () => {
    const prefix = uniquePrefix();
    const ledgers = Array.from({ length: 8 }, () => new SideEffectLedger(testRedis(), prefix));
    const wins = await Promise.all(ledgers.map((l) => l.claim("job-1:ack")));
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect(await ledgers[0]!.claim("job-1:ack")).toBe(false);
    expect(await ledgers[0]!.claim("job-2:ack")).toBe(true);
  });

  it("once: a recorded result is replayed instead of running the effect again", async () => {
    const ledger = new SideEffectLedger(testRedis(), uniquePrefix());
    let runs = 0;
    const first = await ledger.once("k", async () => ({ id: ++runs }));
    const second = await ledger.once("k", async () => ({ id: ++runs }));
    expect(first).toEqual({ value: { id: 1 }, replayed: false });
    expect(second).toEqual({ value: { id: 1 }, replayed: true });
    expect(runs).toBe(1);
  });
});
