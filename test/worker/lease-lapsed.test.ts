import { describe, expect, it } from "vitest";
import { leaseLapsed } from "../../src/worker/lease-lapsed.js";

describe("leaseLapsed: a job lock may be gone once no renewal was confirmed for a whole lock duration", () => {
  it.each([
    [0, 0, 1000, false],
    [0, 999, 1000, false],
    [0, 1000, 1000, true],
    [5000, 4000, 1000, false], // the clock went back: the lease is not over
    [1000, 30_000, 30_000, false],
    [1000, 31_000, 30_000, true],
  ])("renewal sent at %i, now %i, lock %i ms → %s", (sent, now, lock, lapsed) => expect(leaseLapsed(sent, now, lock)).toBe(lapsed));
});
