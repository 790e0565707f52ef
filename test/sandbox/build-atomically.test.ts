import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildAtomically } from "../../src/sandbox/workspace/build-atomically.js";

/** A directory already built, and refreshes that each wait for the test to end them. */
function setup() {
  const dir = join(mkdtempSync(join(tmpdir(), "osw-build-")), "mirror.git");
  mkdirSync(dir);
  const refreshes: Array<{ end: (err?: Error) => void }> = [];
  const refresh = () =>
    new Promise<void>((resolve, reject) => {
      refreshes.push({ end: (err) => (err ? reject(err) : resolve()) });
    });
  const build = async () => {
    throw new Error("already built: never rebuilt");
  };
  return { dir, refreshes, refresh, build };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("buildAtomically: which refresh a caller gets", () => {
  it("refreshAfterCall: callers that come while a refresh runs share the next one, which starts after the first ends", async () => {
    const { dir, refreshes, refresh, build } = setup();
    const settled: string[] = [];
    const first = buildAtomically(dir, dir, build, refresh, { refreshAfterCall: true }).then(() => settled.push("first"));
    await tick();
    expect(refreshes).toHaveLength(1);
    // A push lands, then two runs ask: the running fetch may have read the refs before it.
    const second = buildAtomically(dir, dir, build, refresh, { refreshAfterCall: true }).then(() => settled.push("second"));
    const third = buildAtomically(dir, dir, build, refresh, { refreshAfterCall: true }).then(() => settled.push("third"));
    await tick();
    expect(refreshes).toHaveLength(1);
    refreshes[0]!.end();
    await first;
    await tick();
    expect(settled).toEqual(["first"]);
    expect(refreshes).toHaveLength(2);
    refreshes[1]!.end();
    await Promise.all([second, third]);
    expect(settled).toEqual(["first", "second", "third"]);
    expect(refreshes).toHaveLength(2);
  });

  it("refreshAfterCall: a refresh that fails does not fail the callers waiting for the next one", async () => {
    const { dir, refreshes, refresh, build } = setup();
    const first = buildAtomically(dir, dir, build, refresh, { refreshAfterCall: true });
    await tick();
    const second = buildAtomically(dir, dir, build, refresh, { refreshAfterCall: true });
    refreshes[0]!.end(new Error("fetch failed"));
    await expect(first).rejects.toThrow("fetch failed");
    await tick();
    refreshes[1]!.end();
    await expect(second).resolves.toBe(dir);
  });

  it("without it (a checkout of one commit), a running refresh is shared as it is", async () => {
    const { dir, refreshes, refresh, build } = setup();
    const first = buildAtomically(dir, dir, build, refresh);
    await tick();
    const second = buildAtomically(dir, dir, build, refresh);
    refreshes[0]!.end();
    await expect(Promise.all([first, second])).resolves.toEqual([dir, dir]);
    expect(refreshes).toHaveLength(1);
  });
});
