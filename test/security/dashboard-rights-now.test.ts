import { cookieHeader, keep } from "../helpers/cookie-jar.js";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { ApprovalStore } from "../../src/approvals/approval-store.js";
import { RunIndex } from "../../src/store/run-index.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { FollowUpQueue } from "../../src/threads/follow-ups.js";
import { CLIENT_ID, CLIENT_SECRET, mockSignIn } from "../dashboard/browser.js";
import { mockInstallationToken } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import { testSigner } from "../helpers/job-signer.js";

const API = "https://api.github.com";
const THREAD = "5f0c6a52-8a1e-4c1b-9a57-3f1f5e7d2b99";

const permission = (p: string) => nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: p, role_name: p });

describe("security: dashboard rights are GitHub's answer when the action happens, not the sign-in snapshot", () => {
  let proc: RunningProcess;
  let base: string;
  const prefix = uniquePrefix();
  beforeAll(async () => {
    // A 1-second cache stands in for the (≤ 5 minute) window; a 1-second budget for GitHub's outage.
    proc = await startTestProcess("web", {
      QUEUE_REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      GITHUB_CLIENT_ID: CLIENT_ID,
      GITHUB_CLIENT_SECRET: CLIENT_SECRET,
      PERMISSION_CACHE_SECONDS: "1",
      PERMISSION_CHECK_BUDGET_SECONDS: "1",
      DASHBOARD_ADMINS: "dana",
    });
    base = `http://127.0.0.1:${proc.port}`;
    await new SettingsStore(proc.redis, prefix).recordInstalled("octo/hello", { installationId: 4242 });
    await new RunIndex(proc.redis, prefix).put({
      runId: "run-1",
      repo: "octo/hello",
      threadId: THREAD,
      trigger: "comment",
      source: "github",
      requester: "carl",
      title: "carl's run",
      status: "running",
      queuedAt: Date.now(),
    });
    const job = {
      installationId: 4242,
      owner: "octo",
      repo: "hello",
      source: { kind: "github" as const },
      number: 3,
      isPullRequest: false,
      threadId: THREAD,
      trigger: "comment" as const,
      requester: { login: "carl", id: 9 },
      text: "x",
      verdictAuthorized: false,
      deliveryId: "d1",
    };
    await new ApprovalStore(proc.redis, prefix, 3600_000).create({ id: "abcd1234", threadId: THREAD, job, calls: [{ name: "execute", preview: "ls" }], requestedAt: Date.now(), runId: "run-1" });
  });
  afterAll(async () => proc?.stop());

  async function signIn(): Promise<{ jar: Map<string, string>; csrf: string }> {
    const jar = new Map<string, string>();
    const login = await fetch(`${base}/auth/login?next=/app`, { redirect: "manual" });
    keep(jar, login);
    const authorize = new URL(login.headers.get("location")!);
    mockSignIn({ login: "dana", id: 31, repos: [{ full_name: "octo/hello", push: true }] }, () => authorize.searchParams.get("code_challenge") ?? undefined);
    keep(jar, await fetch(`${base}/auth/callback?code=code-1&state=${authorize.searchParams.get("state")}`, { redirect: "manual", headers: { cookie: cookieHeader(jar) } }));
    // Reading a run asks whether she may read octo/hello now (she still may: cached here); writes ask GitHub themselves.
    await proc.redis.set(`${prefix}:perm-read:octo/hello:dana`, "1", "EX", 60);
    const page = await (await fetch(`${base}/app/runs/run-1`, { headers: { cookie: cookieHeader(jar) } })).text();
    return { jar, csrf: /name="_csrf" value="([^"]+)"/.exec(page)![1]! };
  }

  it("a writer removed from the repository can no longer message, stop, approve or start a task once the cache window passes", async () => {
    const { jar, csrf } = await signIn();
    const post = (p: string, f: Record<string, string> = {}) =>
      fetch(`${base}${p}`, { method: "POST", redirect: "manual", headers: { cookie: cookieHeader(jar) }, body: new URLSearchParams({ _csrf: csrf, ...f }) });
    const followUps = new FollowUpQueue(proc.redis, prefix, 10, testSigner());

    // While GitHub says write: the message goes through (asked once, then cached).
    mockInstallationToken(4242);
    permission("write");
    expect((await post("/app/runs/run-1/messages", { text: "also the docs" })).status).toBe(303);
    expect(await followUps.length(THREAD)).toBe(1);

    // Her write access is removed; past the cache window, every action is refused, nothing is done.
    await new Promise((r) => setTimeout(r, 1_200));
    // Asked twice: may she read the run (yes), then may she write (no).
    permission("read");
    permission("read");
    const msg = await post("/app/runs/run-1/messages", { text: "push to main" });
    expect(msg.status).toBe(403);
    expect(await msg.text()).toContain("cannot write to octo/hello now");
    expect((await post("/app/runs/run-1/stop")).status).toBe(403);
    expect((await post("/app/approvals/abcd1234/approve")).status).toBe(403);
    expect((await post("/app/tasks", { repo: "octo/hello", text: "delete the tests" })).status).toBe(403);
    // Being an admin does not stand in for it: the repository's settings and its style stay as they were.
    expect((await post("/app/admin/styles/octo/hello/relearn")).status).toBe(403);
    expect((await post("/app/admin/repos", { repo: "octo/hello", action: "enable" })).status).toBe(403);
    expect(await proc.queues.queues.analyze.count()).toBe(0);
    expect(await new SettingsStore(proc.redis, prefix).listEnabledRepos()).toEqual([]);
    expect(await followUps.length(THREAD)).toBe(1);
    expect(await proc.redis.get(`${prefix}:run-stop:run-1`)).toBeNull();
    expect(await new ApprovalStore(proc.redis, prefix, 3600_000).resolution("abcd1234")).toBeNull();
    expect(await proc.queues.queues.agent.count()).toBe(0);
  });

  it("GitHub not answering is an outage, said as one (503), never a refusal that is cached", async () => {
    const { jar, csrf } = await signIn();
    await new Promise((r) => setTimeout(r, 1_200));
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").times(2).reply(502, { message: "Bad Gateway" });
    const res = await fetch(`${base}/app/runs/run-1/stop`, { method: "POST", redirect: "manual", headers: { cookie: cookieHeader(jar) }, body: new URLSearchParams({ _csrf: csrf }) });
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("GitHub did not answer");
    expect(await proc.redis.get(`${prefix}:run-stop:run-1`)).toBeNull();
  });
});
