import { describe, expect, it } from "vitest";
import type { Finding } from "../../src/review/findings.js";
import { FindingsStore, FindingsStoreError } from "../../src/review/findings-store.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const pr = { owner: "o", repo: "r", pull_number: 7 };
const other = { owner: "o", repo: "r", pull_number: 8 };

function finding(id: string, line: number): Finding {
  return { id, fingerprint: `fp-${id}`, path: "src/a.ts", line, side: "RIGHT", headSha: "h1", severity: "medium", title: `t ${id}`, body: "b", rule: "r", status: "open" };
}

describe("FindingsStore", () => {
  it("keeps one evolving set per PR, replaced atomically and isolated from other PRs", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    await store.replaceAll(pr, [finding("b", 9), finding("a", 3)]);
    await store.replaceAll(other, [finding("z", 1)]);
    expect((await store.list(pr)).map((f) => f.id)).toEqual(["a", "b"]);

    await store.replaceAll(pr, [{ ...finding("a", 5), status: "resolved" }]);
    expect(await store.list(pr)).toEqual([{ ...finding("a", 5), status: "resolved" }]);
    expect((await store.list(other)).map((f) => f.id)).toEqual(["z"]);

    await store.replaceAll(pr, []);
    expect(await store.list(pr)).toEqual([]);
  });

  it("updates one finding and rejects unknown ids and invalid data", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    await store.put(pr, finding("a", 3));
    const updated = await store.update(pr, "a", { githubCommentId: 42, githubThreadId: "PRRT_1" });
    expect(updated).toMatchObject({ id: "a", githubCommentId: 42, githubThreadId: "PRRT_1" });
    expect(await store.get(pr, "a")).toEqual(updated);
    await expect(store.update(pr, "missing", { status: "dismissed" })).rejects.toMatchObject({ code: "finding_not_found" });
    await expect(store.update(pr, "a", { severity: "urgent" as never })).rejects.toThrow();
  });

  it("reports a corrupt stored finding with a code", async () => {
    const redis = testRedis();
    const prefix = `${uniquePrefix()}:`;
    const store = new FindingsStore(redis, prefix);
    await redis.hset(`${prefix}review:findings:{o/r#7}`, "x", "{not json");
    const err = await store.list(pr).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FindingsStoreError);
    expect((err as FindingsStoreError).code).toBe("findings_corrupt");
  });

  it("remembers review state and removes fields set to null", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    expect(await store.getState(pr)).toEqual({});
    await store.setState(pr, { headSha: "h2", summaryReviewId: 10, approvalReviewId: 11 });
    expect(await store.getState(pr)).toEqual({ headSha: "h2", summaryReviewId: 10, approvalReviewId: 11 });
    await store.setState(pr, { approvalReviewId: null });
    expect(await store.getState(pr)).toEqual({ headSha: "h2", summaryReviewId: 10 });
    await store.clear(pr);
    expect(await store.getState(pr)).toEqual({});
  });
});
