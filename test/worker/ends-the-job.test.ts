import { UnrecoverableError, WaitingError } from "bullmq";
import { describe, expect, it } from "vitest";
import { LockLostError } from "../../src/shared/lock-lost.js";
import { endsTheJob } from "../../src/worker/start-workers.js";

/** A job is recorded as run (and refused if queued again) only at its last execution: retries and hand-backs still run. */
describe("endsTheJob", () => {
  it.each([
    ["a failure with attempts left", new Error("boom"), 0, 3, false],
    ["a failure on its last attempt", new Error("boom"), 2, 3, true],
    ["a failure with no attempts option", new Error("boom"), 0, undefined, true],
    ["an unrecoverable failure on its first attempt", new UnrecoverableError("bad payload"), 0, 3, true],
    ["a hand-back to waiting (shutdown, lease lapsed)", new WaitingError(), 2, 3, false],
    ["a lost job lock", new LockLostError("j1"), 2, 3, false],
  ] as const)("%s → %s", (_name, err, attemptsMade, attempts, ends) => {
    expect(endsTheJob(err, { attemptsMade, opts: attempts === undefined ? {} : { attempts } })).toBe(ends);
  });
});
