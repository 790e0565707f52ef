import { cookieHeader, keep } from "../helpers/cookie-jar.js";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { JobSigner, NO_PROVENANCE } from "../../src/queue/job-provenance.js";
import { RunIndex } from "../../src/store/run-index.js";
import { SecretBox } from "../../src/store/secret-box.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { UserTokens } from "../../src/store/user-tokens.js";
import { threadId } from "../../src/shared/thread-id.js";
import { CLIENT_ID, CLIENT_SECRET, mockSignIn } from "../dashboard/browser.js";
import { waitForJob } from "../helpers/jobs.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const KEY = "7".repeat(64);

/** alice's request, as an attacker writes it: her login, her repository, a task of his choosing. */
const aliceJob = (text: string) => ({
  installationId: 4242,
  owner: "octo",
  repo: "secret",
  number: 7,
  isPullRequest: false,
  threadId: threadId({ kind: "issue", issueId: 7007 }),
  trigger: "comment",
  requester: { login: "alice", id: 1 },
  text,
  verdictAuthorized: true,
  comment: { kind: "issue_comment", id: 70 },
  deliveryId: `forged-${text.length}`,
});

describe("jobs added by hand act as nobody; bull-board only reads", () => {
  let web: RunningProcess;
  let worker: RunningProcess;
  let base: string;
  const prefix = uniquePrefix();
  const env = { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, OPEN_SWE_SECRET_KEY: KEY, GITHUB_CLIENT_ID: CLIENT_ID, GITHUB_CLIENT_SECRET: CLIENT_SECRET, DASHBOARD_ADMINS: "ada" };
  const tokens = new UserTokens(testRedis(), prefix, new SecretBox(KEY));
  beforeAll(async () => {
    web = await startTestProcess("web", env);
    worker = await startTestProcess("worker", env, { queues: ["agent"] });
    base = `http://127.0.0.1:${web.port}`;
    const settings = new SettingsStore(web.redis, prefix);
    await settings.recordInstalled("octo/secret", { installationId: 4242 });
    // alice opens PRs as herself: her sealed token is what a forged job would reach for.
    await settings.setProfile("alice", { prsAsMe: true });
    await tokens.save("alice", { accessToken: "ghu_alice_secret", refreshToken: "ghr_alice", expiresAt: Date.now() + 60_000, refreshExpiresAt: Date.now() + 86400_000 });
  });
  afterAll(async () => {
    await web?.stop();
    await worker?.stop();
  });

  it("a job added straight to BullMQ naming another user is refused by a real worker: one failure that says why, nothing done", async () => {
    const raw = new Queue("agent", { connection: testRedis(), prefix });
    const before = await tokens.get("alice");
    await raw.add("agent", aliceJob("push my changes to main"), { jobId: "by-hand", attempts: 3 });
    // Signed with a key guessed wrong, or a real signature over someone else's job with the task swapped.
    await raw.add(
      "agent",
      JobSigner.fromEnv({ WEBHOOK_SECRET: "guess" }).sign("agent", { jobId: "guessed-key" }, aliceJob("guessed key"), "github-webhook", { login: "alice", id: 1 }, { iat: Date.now() }),
      { jobId: "guessed-key" },
    );
    const real = JobSigner.fromEnv({ OPEN_SWE_SECRET_KEY: KEY }).sign("agent", { jobId: "altered" }, aliceJob("update the README"), "github-webhook", { login: "alice", id: 1 }, { iat: Date.now() });
    await raw.add("agent", { ...real, text: "add my deploy key" }, { jobId: "altered" });
    for (const id of ["by-hand", "guessed-key", "altered"]) {
      const done = await waitForJob(raw, id, 20_000);
      expect(done.state, id).toBe("failed");
      expect(done.failedReason, id).toContain(NO_PROVENANCE);
      // Not retried: an UnrecoverableError on the first attempt.
      expect((await raw.getJob(id))?.attemptsMade, id).toBe(1);
    }
    // No GitHub call was made (nock has no mock for any, and the failure is the provenance's, not a
    // refused connection); alice's token was neither refreshed nor touched; no run was recorded.
    expect(await tokens.get("alice")).toEqual(before);
    expect(await worker.redis.keys(`${prefix}:run-index*`)).toEqual([]);
    await raw.close();
  });

  it("a DASHBOARD_ADMINS login with no repository cannot add, retry or edit a job through bull-board", async () => {
    const jar = new Map<string, string>();
    const login = await fetch(`${base}/auth/login?next=/app`, { redirect: "manual" });
    keep(jar, login);
    const authorize = new URL(login.headers.get("location")!);
    mockSignIn({ login: "ada", id: 40, repos: [] }, () => authorize.searchParams.get("code_challenge") ?? undefined);
    keep(jar, await fetch(`${base}/auth/callback?code=code-1&state=${authorize.searchParams.get("state")}`, { redirect: "manual", headers: { cookie: cookieHeader(jar) } }));
    const api = (path: string, method: string, body?: unknown) =>
      fetch(`${base}/app/admin/queues/api/queues/agent${path}`, {
        method,
        headers: { cookie: cookieHeader(jar), origin: base, "sec-fetch-site": "same-origin", "content-type": "application/json" },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    // She can look.
    expect((await fetch(`${base}/app/admin/queues/api/queues`, { headers: { cookie: cookieHeader(jar) } })).status).toBe(200);
    // She cannot act: add a job naming alice, retry the failed ones, rewrite one's data, clean.
    const add = await api("/add", "POST", { name: "agent", data: aliceJob("from the board"), options: {} });
    expect(add.status).toBe(405);
    expect((await api("/retry/failed", "PUT")).status).toBe(405);
    expect((await api("/by-hand/retry", "PUT")).status).toBe(405);
    expect((await api("/by-hand/update-data", "PATCH", { jobData: aliceJob("edited") })).status).toBe(405);
    expect((await api("/clean/failed", "PUT")).status).toBe(405);
    expect(await web.queues.queues.agent.getJobCountByTypes("waiting", "delayed", "active")).toBe(0);
    // Nor does being an admin show her a run of a repository she cannot write.
    await new RunIndex(web.redis, prefix).put({
      runId: "run-secret",
      repo: "octo/secret",
      threadId: aliceJob("").threadId,
      trigger: "comment",
      source: "github",
      requester: "alice",
      title: "alice's run",
      status: "running",
      queuedAt: Date.now(),
    });
    expect(await (await fetch(`${base}/app/runs`, { headers: { cookie: cookieHeader(jar) } })).text()).not.toContain("run-secret");
    expect((await fetch(`${base}/app/runs/run-secret`, { headers: { cookie: cookieHeader(jar) } })).status).toBe(404);
  });
});
