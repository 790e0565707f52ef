import nock from "nock";
import { ProbotOctokit } from "probot";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { openOrUpdatePullRequest } from "../../src/github/tools/open-pull-request.js";
import type { GitHubRunContext } from "../../src/github/tools/run-context.js";
import { prAuthorFor, REFRESH_MARGIN_MS, tokenAction } from "../../src/github/user-pr-author.js";
import { QueueSet } from "../../src/queue/queues.js";
import { SecretBox } from "../../src/store/secret-box.js";
import { SideEffectLedger } from "../../src/store/side-effects.js";
import { UserTokens } from "../../src/store/user-tokens.js";
import { PrThreads } from "../../src/store/pr-threads.js";
import { testConfig } from "../helpers/github-app.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";
import type { Redis } from "ioredis";
import { testSigner } from "../helpers/job-signer.js";

const API = "https://api.github.com";
const KEY = "a".repeat(64);
const OLD_KEY = "b".repeat(64);
const config = testConfig({ OPEN_SWE_SECRET_KEY: KEY, GITHUB_CLIENT_ID: "Iv1.x", GITHUB_CLIENT_SECRET: "s" });
const log = createLogger("silent");

/** Every byte under the prefix, as Redis holds it (DUMP: the serialized value, whatever its type). */
async function allBytes(redis: Redis, prefix: string): Promise<string> {
  const keys = await redis.keys(`${prefix}:*`);
  const dumps = await Promise.all(keys.map((k) => redis.dumpBuffer(k)));
  return dumps.map((d) => d?.toString("latin1") ?? "").join("\n") + keys.join("\n");
}

function runContext(redis: Redis, prefix: string): GitHubRunContext {
  return {
    octokit: new ProbotOctokit({ auth: { token: "ghs_installation" }, retry: { enabled: false }, throttle: { enabled: false } }),
    installationId: 5,
    owner: "octo",
    repo: "hello",
    threadId: "5f0c6a52-8a1e-4c1b-9a57-3f1f5e7d2b11",
    runId: "run-1",
    target: null,
    requester: { login: "alice", id: 1 },
    branch: "open-swe/x",
    baseBranch: "main",
    effects: new SideEffectLedger(redis, prefix),
    queues: new QueueSet({ connection: redis, prefix, attempts: 1, signer: testSigner() }),
    prThreads: new PrThreads(redis, prefix, testSigner()),
    verdictAuthorized: false,
    provenance: { via: "github-webhook", principal: { login: "alice", id: 1 } },
    botLogin: "open-swe[bot]",
    state: { replied: false, pushedSha: "abc" },
  };
}

describe('user tokens at rest ("open PRs as me")', () => {
  it("are sealed: no token byte in Redis, bound to their login, readable after key rotation", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const old = new UserTokens(redis, prefix, new SecretBox(OLD_KEY));
    await old.save("Alice", { accessToken: "ghu_secretaccess123", refreshToken: "ghr_secretrefresh456", expiresAt: Date.now() + 3600_000 });
    const bytes = await allBytes(redis, prefix);
    expect(bytes).not.toContain("ghu_secretaccess123");
    expect(bytes).not.toContain("ghr_secretrefresh456");
    expect(bytes).not.toContain("secretaccess");
    // Rotation: the new key plus the old one reads it and re-seals it under the new key.
    const rotated = new UserTokens(redis, prefix, new SecretBox(KEY, [OLD_KEY]));
    expect((await rotated.get("alice"))?.accessToken).toBe("ghu_secretaccess123");
    expect((await new UserTokens(redis, prefix, new SecretBox(KEY)).get("alice"))?.accessToken).toBe("ghu_secretaccess123");
    // Copying alice's blob under mallory's name opens nothing (the login is the AAD).
    const field = `${prefix}:user-tokens`;
    await redis.hset(field, "mallory", (await redis.hget(field, "alice"))!);
    expect(await rotated.get("mallory")).toBeNull();
  });

  it("tokenAction: use, refresh before expiry, or expired", () => {
    const now = 1_000_000_000;
    const cases: [Parameters<typeof tokenAction>[0], ReturnType<typeof tokenAction>][] = [
      [{ accessToken: "a" }, "use"],
      [{ accessToken: "a", expiresAt: now + REFRESH_MARGIN_MS + 1 }, "use"],
      [{ accessToken: "a", expiresAt: now + REFRESH_MARGIN_MS, refreshToken: "r" }, "refresh"],
      [{ accessToken: "a", expiresAt: now - 1, refreshToken: "r", refreshExpiresAt: now + 1 }, "refresh"],
      [{ accessToken: "a", expiresAt: now - 1, refreshToken: "r", refreshExpiresAt: now - 1 }, "expired"],
      [{ accessToken: "a", expiresAt: now - 1 }, "expired"],
    ];
    for (const [t, want] of cases) expect(tokenAction(t, now), JSON.stringify(t)).toBe(want);
  });

  it("the PR is opened with the user's token, refreshed first when about to expire; the new tokens are sealed too", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const tokens = new UserTokens(redis, prefix, new SecretBox(KEY));
    await tokens.save("alice", { accessToken: "ghu_old", refreshToken: "ghr_old", expiresAt: Date.now() + 60_000, refreshExpiresAt: Date.now() + 86400_000 });
    nock("https://github.com")
      .post("/login/oauth/access_token", (b) => b.grant_type === "refresh_token" && b.refresh_token === "ghr_old" && b.client_id === "Iv1.x")
      .reply(200, { access_token: "ghu_fresh777", refresh_token: "ghr_fresh888", expires_in: 28800, refresh_token_expires_in: 15_811_200 });
    const author = await prAuthorFor({ config, redis, prefix, log, login: "alice", profile: { prsAsMe: true } });
    expect(author?.octokit).not.toBeNull();
    const ctx = runContext(redis, prefix);
    ctx.prAuthor = author!;
    nock(API).get("/repos/octo/hello/pulls").query(true).matchHeader("authorization", "token ghs_installation").reply(200, []);
    const pr = nock(API)
      .post("/repos/octo/hello/pulls", (b) => !b.body.includes("Opened by the app"))
      .matchHeader("authorization", "token ghu_fresh777")
      .reply(201, { number: 3, html_url: "https://github.com/octo/hello/pull/3" });
    await openOrUpdatePullRequest(ctx, { title: "t", body: "b" });
    expect(pr.isDone()).toBe(true);
    expect((await tokens.get("alice"))?.accessToken).toBe("ghu_fresh777");
    const bytes = await allBytes(redis, prefix);
    for (const secret of ["ghu_fresh777", "ghr_fresh888", "ghu_old", "ghr_old"]) expect(bytes).not.toContain(secret);
  });

  it("a revoked user token falls back to the installation token and the PR says so", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    await new UserTokens(redis, prefix, new SecretBox(KEY)).save("alice", { accessToken: "ghu_revoked" });
    const ctx = runContext(redis, prefix);
    ctx.prAuthor = (await prAuthorFor({ config, redis, prefix, log, login: "alice", profile: { prsAsMe: true } }))!;
    nock(API).get("/repos/octo/hello/pulls").query(true).reply(200, []);
    nock(API).post("/repos/octo/hello/pulls").matchHeader("authorization", "token ghu_revoked").reply(401, { message: "Bad credentials" });
    const fallback = nock(API)
      .post("/repos/octo/hello/pulls", (b) => /Opened by the app instead of @alice: GitHub refused their authorisation/.test(b.body))
      .matchHeader("authorization", "token ghs_installation")
      .reply(201, { number: 4, html_url: "https://github.com/octo/hello/pull/4" });
    expect(await openOrUpdatePullRequest(ctx, { title: "t", body: "b" })).toMatchObject({ number: 4, created: true });
    expect(fallback.isDone()).toBe(true);
  });

  it("an expired refresh token, or none stored: the app opens the PR and says why", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const tokens = new UserTokens(redis, prefix, new SecretBox(KEY));
    await tokens.save("alice", { accessToken: "ghu_gone", expiresAt: Date.now() - 1000 });
    const expired = await prAuthorFor({ config, redis, prefix, log, login: "alice", profile: { prsAsMe: true } });
    expect(expired).toMatchObject({ octokit: null, fallbackNote: expect.stringMatching(/authorisation expired/) });
    expect(await tokens.get("alice")).toBeNull();
    expect(await prAuthorFor({ config, redis, prefix, log, login: "bob", profile: { prsAsMe: true } })).toMatchObject({
      octokit: null,
      fallbackNote: expect.stringMatching(/no GitHub authorisation/),
    });
    expect(await prAuthorFor({ config, redis, prefix, log, login: "bob", profile: { prsAsMe: false } })).toBeNull();
  });
});
