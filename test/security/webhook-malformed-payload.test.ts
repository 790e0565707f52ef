import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { sendWebhook } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const repo = { installation: { id: 1 }, repository: { name: "a", full_name: "b/a", owner: { login: "b" } } };
const user = { login: "x", id: 1, type: "User" };

/** Signed deliveries GitHub would never send: each must be a 400 with a short reason. */
const CASES: { name: string; event: string; body: unknown; reason: RegExp }[] = [
  { name: "comment without a comment", event: "issue_comment", body: { action: "created", ...repo, sender: user }, reason: /^WebhookPayloadError: malformed issue_comment\.created payload/ },
  {
    name: "issue number that is a string",
    event: "issue_comment",
    body: { action: "created", ...repo, sender: user, issue: { number: "five", id: 1 }, comment: { id: 1, body: "@open-swe fix", user } },
    reason: /^WebhookPayloadError: malformed issue_comment\.created payload: number: /,
  },
  { name: "pull_request without a pull request", event: "pull_request", body: { action: "opened", ...repo }, reason: /malformed pull_request\.opened payload/ },
  { name: "issues without an issue", event: "issues", body: { action: "opened", ...repo }, reason: /malformed issues\.opened payload/ },
  { name: "check_run without a check run", event: "check_run", body: { action: "completed", ...repo }, reason: /malformed check_run\.completed payload/ },
  { name: "installation without an installation", event: "installation", body: { action: "created" }, reason: /malformed installation\.created payload/ },
  { name: "a bare string", event: "issue_comment", body: "str", reason: /^the payload must be a JSON object$/ },
  { name: "null", event: "issue_comment", body: null, reason: /^the payload must be a JSON object$/ },
];

describe("security: a signed but malformed payload is a 400 with a short reason", () => {
  let proc: RunningProcess;
  beforeAll(async () => {
    proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix() });
  });
  afterAll(async () => proc?.stop());

  for (const c of CASES) {
    it(c.name, async () => {
      const res = await sendWebhook(proc.port!, { event: c.event, payload: null, rawBody: JSON.stringify(c.body), offContract: "a malformed payload is the attack" });
      expect(res.status).toBe(400);
      const { error } = JSON.parse(res.body) as { error: string };
      expect(error).toMatch(c.reason);
      expect(error.length).toBeLessThanOrEqual(200);
      expect(error).not.toMatch(/TypeError|ZodError|Cannot read|"code"|\n/);
    });
  }
});
