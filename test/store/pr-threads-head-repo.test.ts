import { describe, expect, it } from "vitest";
import { testSigner } from "../helpers/job-signer.js";
import { PrThreads } from "../../src/store/pr-threads.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const THREAD = "6f1c2f0e-8a55-4c1b-9d7e-3b2a1c0d9e8f";
const BRANCH = "open-swe/6f1c2f0e-fix-lint";
const facts = (number: number, head: { ref: string; repo: string | null } | null) => ({ owner: "octo", repo: "hello", number, body: "", authorLogin: "mallory", head });

// Issue #42: a branch names a thread only with its head repository; a fork's branch of the same name never does.
describe("PrThreads: a branch is keyed by its head repository", () => {
  it.each([
    ["the agent's branch in the base repository", { ref: BRANCH, repo: "octo/hello" }, THREAD],
    ["the same, the head repository in another case", { ref: BRANCH, repo: "Octo/Hello" }, THREAD],
    ["a fork's branch of the same name", { ref: BRANCH, repo: "mallory/hello" }, null],
    ["a deleted fork's branch of the same name", { ref: BRANCH, repo: null }, null],
    ["no head known (an issue comment)", null, null],
    ["another branch of the base repository", { ref: "open-swe/other", repo: "octo/hello" }, null],
  ] as const)("%s → %s", async (_n, head, expected) => {
    const threads = new PrThreads(testRedis(), uniquePrefix(), testSigner());
    await threads.record({ owner: "octo", repo: "hello", number: 12, branch: BRANCH }, THREAD);
    expect(await threads.origin(facts(40, head), "open-swe[bot]")).toBe(expected);
    // The PR the agent opened is its own by number, whatever its head says.
    expect(await threads.origin(facts(12, head), "open-swe[bot]")).toBe(THREAD);
  });

  it("a key written before the upgrade (no head repository in it) still names the thread for a head in the base repository, never for a fork's", async () => {
    const prefix = uniquePrefix();
    await testRedis().set(`${prefix}:prthread:branch:octo/hello:${BRANCH}`, THREAD);
    const threads = new PrThreads(testRedis(), prefix, testSigner());
    expect(await threads.origin(facts(40, { ref: BRANCH, repo: "octo/hello" }), "open-swe[bot]")).toBe(THREAD);
    expect(await threads.origin(facts(40, { ref: BRANCH, repo: "mallory/hello" }), "open-swe[bot]")).toBeNull();
    expect(await threads.origin(facts(40, { ref: BRANCH, repo: null }), "open-swe[bot]")).toBeNull();
  });

  it("the webhook path's keys: a fork's PR gets its number's key alone", () => {
    const threads = new PrThreads(testRedis(), "p", testSigner());
    expect(threads.originKeys({ owner: "octo", repo: "hello", number: 40, head: { ref: BRANCH, repo: "mallory/hello" } })).toEqual(["p:prthread:pr:octo/hello#40"]);
    expect(threads.originKeys({ owner: "octo", repo: "hello", number: 40, head: { ref: BRANCH, repo: "octo/hello" } })).toEqual([
      "p:prthread:pr:octo/hello#40",
      `p:prthread:head:octo/hello:octo/hello:${BRANCH}`,
      `p:prthread:branch:octo/hello:${BRANCH}`,
    ]);
  });
});
