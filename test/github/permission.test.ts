import nock from "nock";
import { ProbotOctokit } from "probot";
import { describe, expect, it } from "vitest";
import { GitHubUnreachableError, hasWriteAccess } from "../../src/github/permission.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const API = "https://api.github.com";
const PATH = "/repos/octo/hello/collaborators/dana/permission";

type Step = { status: number; body?: object } | { error: string };

/** A clock whose waits pass instantly and are counted: the budget is checked without waiting it out. */
function fakeClock() {
  let now = 0;
  const waits: number[] = [];
  return { waits, elapsed: () => now, clock: { now: () => now, sleep: async (ms: number) => void (waits.push(ms), (now += ms)) } };
}

function script(steps: Step[]) {
  for (const s of steps) {
    const i = nock(API).get(PATH);
    if ("error" in s) i.replyWithError({ code: s.error, message: `socket ${s.error}` });
    else i.reply(s.status, s.body ?? { message: "x" });
  }
}

const check = (budgetMs: number, clock: ReturnType<typeof fakeClock>["clock"], prefix = uniquePrefix()) =>
  hasWriteAccess({
    // Production octokit (retries on): the check itself must keep retries to its own bounded loop.
    octokit: new ProbotOctokit({ auth: { token: "t" }, throttle: { enabled: false } }),
    redis: testRedis(),
    prefix,
    cacheSeconds: 60,
    owner: "octo",
    repo: "hello",
    login: "dana",
    budgetMs,
    clock,
  });

describe("hasWriteAccess: only an answer refuses", () => {
  const write = { status: 200, body: { permission: "write", role_name: "write" } };
  it.each<[string, Step[], boolean]>([
    ["write", [write], true],
    ["maintain role", [{ status: 200, body: { permission: "write", role_name: "maintain" } }], true],
    ["read is a real no", [{ status: 200, body: { permission: "read", role_name: "read" } }], false],
    ["triage is a real no", [{ status: 200, body: { permission: "read", role_name: "triage" } }], false],
    ["no such user (404) is a real no", [{ status: 404 }], false],
    ["502, 503 then write", [{ status: 502 }, { status: 503 }, write], true],
    ["ECONNRESET then write", [{ error: "ECONNRESET" }, write], true],
    ["401 (token trouble) then write", [{ status: 401 }, write], true],
    [
      "403 rate limit then read",
      [
        { status: 403, body: { message: "API rate limit exceeded" } },
        { status: 200, body: { permission: "read" } },
      ],
      false,
    ],
  ])("%s", async (_name, steps, expected) => {
    script(steps);
    const { clock } = fakeClock();
    expect(await check(60_000, clock)).toBe(expected);
  });

  it("gives up within the budget when GitHub keeps failing, and caches nothing", async () => {
    // 500 + 1000 + 2000 + 4000 + 8000 + 8000 = 23.5 s of waits fit in 30 s; the next 8 s would not.
    script([{ status: 502 }, { error: "ECONNRESET" }, { status: 502 }, { status: 500 }, { error: "ETIMEDOUT" }, { status: 502 }, { status: 502 }]);
    const { clock, waits, elapsed } = fakeClock();
    const prefix = uniquePrefix();
    const err = await check(30_000, clock, prefix).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitHubUnreachableError);
    expect((err as GitHubUnreachableError).attempts).toBe(7);
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect(elapsed()).toBeLessThanOrEqual(30_000);
    // GitHub back: the next check asks again (no cached "no").
    script([write]);
    expect(await check(30_000, fakeClock().clock, prefix)).toBe(true);
  });
});
