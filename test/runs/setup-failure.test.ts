import { writeFileSync } from "node:fs";
import { UnrecoverableError } from "bullmq";
import { describe, expect, it } from "vitest";
import { isLastAttempt, setupFailureReply } from "../../src/runs/setup-failure.js";
import { SandboxError } from "../../src/sandbox/types.js";

/** A real ENOSPC from the kernel: /dev/full refuses every write with it. */
function realEnospc(): unknown {
  try {
    writeFileSync("/dev/full", "x");
  } catch (err) {
    return err;
  }
  throw new Error("/dev/full accepted a write");
}

describe("a run that fails before its agent loop says why", () => {
  it.each([
    ["a real ENOSPC (disk full)", realEnospc(), /out of disk space \(ENOSPC\)/],
    ["ENOSPC wrapped as a cause", new Error("could not prepare the workspace", { cause: realEnospc() }), /out of disk space \(ENOSPC\)/],
    ["ENOSPC only in a child's stderr", new Error("git clone failed: fatal: write error: No space left on device (ENOSPC)"), /out of disk space \(ENOSPC\)/],
    ["a read-only disk", Object.assign(new Error("EROFS: read-only file system, open '/x'"), { code: "EROFS" }), /became read-only \(EROFS\)/],
    ["a stale file handle", Object.assign(new Error("ESTALE: stale file handle"), { code: "ESTALE" }), /stale \(ESTALE/],
    ["a sandbox that cannot be made", new SandboxError("unavailable", "bwrap: cannot mkdir /sandboxes/x"), /the sandbox could not be made \(unavailable\): bwrap/],
    ["anything else", new Error("boom"), /preparing the workspace failed: boom/],
  ])("%s", (_, err, expected) => {
    const reply = setupFailureReply(err);
    expect(reply).toMatch(/^I could not start on this: /);
    expect(reply).toMatch(expected);
    expect(reply).toMatch(/An operator needs to look at the worker/);
  });

  it.each([
    ["GitHub's API answering 502", Object.assign(new Error("Server Error"), { status: 502 }), /\(HTTP 502\)/],
    ["GitHub's rate limit (429), as a cause", new Error("could not prepare the workspace", { cause: Object.assign(new Error("rate limited"), { status: 429 }) }), /\(HTTP 429\)/],
    ["git fetch over HTTPS refused with a 503", new Error("git fetch failed: fatal: unable to access 'https://github.com/o/r.git/': The requested URL returned error: 503"), /\(HTTP 503\)/],
  ])("%s: said as GitHub's trouble, not the worker's or the request's", (_, err, status) => {
    const reply = setupFailureReply(err);
    expect(reply).toMatch(/^I could not start on this: GitHub kept failing while I prepared the workspace /);
    expect(reply).toMatch(status);
    expect(reply).toMatch(/an upstream error, not your request/);
    expect(reply).not.toMatch(/operator/);
  });

  it("a 404 from GitHub is not an outage: said with its text, as before", () => {
    expect(setupFailureReply(Object.assign(new Error("Not Found"), { status: 404 }))).toMatch(/preparing the workspace failed: Not Found/);
  });

  it.each([
    [new Error("x"), 1, 3, false],
    [new Error("x"), 3, 3, true],
    [new UnrecoverableError("x"), 1, 3, true],
  ])("last attempt: %s attempt %i of %i → %s", (err, attempt, attempts, last) => expect(isLastAttempt(err, attempt, attempts)).toBe(last));
});
