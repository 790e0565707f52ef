import { generateKeyPairSync } from "node:crypto";
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { createGitHubAuth } from "../../src/github/app-auth.js";
import { createLogger } from "../../src/logger.js";

const API = "https://api.github.com";
const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
const github: Parameters<typeof createGitHubAuth>[0] = { appId: "1", privateKey: key, webhookSecret: "s" };

/** One primary rate-limit refusal whose window has already reset: a throttled client waits it out and retries. */
function rateLimitedOnce(): nock.Scope {
  return nock(API)
    .post("/app/installations/9/access_tokens")
    .reply(201, { token: "ghs_t", expires_at: new Date(Date.now() + 3600_000).toISOString() })
    .post("/repos/o/r/issues/1/comments")
    .reply(403, { message: "API rate limit exceeded" }, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(Math.floor(Date.now() / 1000)) });
}

const comment = async (auth: ReturnType<typeof createGitHubAuth>) =>
  (await auth.installation(9)).request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner: "o", repo: "r", issue_number: 1, body: "x" });

afterEach(() => nock.cleanAll());

describe("createGitHubAuth", () => {
  // The throttling plugin is what answers a rate limit by waiting and retrying (and spaces writes 1 s,
  // comments 3 s apart); with it off the 403 comes straight back. (Probot wraps our Octokit class: an object default lost this flag.)
  it("turns the installation client's throttling off when asked, so it never queues or retries", async () => {
    const scope = rateLimitedOnce();
    const auth = createGitHubAuth(github, { log: createLogger("silent"), octokitDefaults: { retry: { enabled: false }, throttle: { enabled: false } } });
    await expect(comment(auth)).rejects.toMatchObject({ status: 403 });
    expect(scope.isDone()).toBe(true);
  });

  it("keeps throttling on by default: a rate limit is waited out and retried", async () => {
    rateLimitedOnce().post("/repos/o/r/issues/1/comments").reply(201, { id: 7 });
    const auth = createGitHubAuth(github, { log: createLogger("silent") });
    await expect(comment(auth)).resolves.toMatchObject({ status: 201, data: { id: 7 } });
  });
});
