import { cookieHeader, keep } from "../helpers/cookie-jar.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { RunIndex } from "../../src/store/run-index.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { mockRepoRole } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import { CLIENT_ID, CLIENT_SECRET, mockSignIn } from "../dashboard/browser.js";

describe("dashboard access: other repos' runs, forged cookies, replayed callbacks, open redirects, cross-site posts", () => {
  let proc: RunningProcess;
  let base: string;
  const prefix = uniquePrefix();
  beforeAll(async () => {
    proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, GITHUB_CLIENT_ID: CLIENT_ID, GITHUB_CLIENT_SECRET: CLIENT_SECRET, DASHBOARD_ADMINS: "ada" });
    base = `http://127.0.0.1:${proc.port}`;
    const settings = new SettingsStore(proc.redis, prefix);
    await settings.recordInstalled("octo/hello", { installationId: 4242 });
    await settings.recordInstalled("octo/secret", { installationId: 4242 });
    // Reading a run asks GitHub whether dana may read octo/hello now (then cached).
    mockRepoRole("dana");
    const index = new RunIndex(proc.redis, prefix);
    for (const [runId, repo] of [
      ["run-hello", "octo/hello"],
      ["run-secret", "octo/secret"],
    ] as const) {
      await index.put({
        runId,
        repo,
        threadId: `5f0c6a52-8a1e-4c1b-9a57-3f1f5e7d2b1${runId.length % 10}`,
        trigger: "comment",
        source: "github",
        requester: "x",
        title: runId,
        status: "running",
        queuedAt: Date.now(),
      });
    }
  });
  afterAll(async () => proc?.stop());

  /** Signs in as dana (push on octo/hello only) without a browser; returns her cookie jar and CSRF token. */
  async function signIn(next = "/app", login_ = "dana"): Promise<{ jar: Map<string, string>; landed: string; callback: string }> {
    const jar = new Map<string, string>();
    const login = await fetch(`${base}/auth/login?next=${encodeURIComponent(next)}`, { redirect: "manual" });
    keep(jar, login);
    const authorize = new URL(login.headers.get("location")!);
    mockSignIn(
      {
        login: login_,
        id: 31,
        repos: [
          { full_name: "octo/hello", push: true },
          { full_name: "octo/secret", push: false },
        ],
      },
      () => authorize.searchParams.get("code_challenge") ?? undefined,
    );
    const callback = `${base}/auth/callback?code=code-1&state=${authorize.searchParams.get("state")}`;
    const res = await fetch(callback, { redirect: "manual", headers: { cookie: cookieHeader(jar) } });
    keep(jar, res);
    expect(res.status).toBe(302);
    return { jar, landed: res.headers.get("location")!, callback };
  }

  it("a run in a repo the viewer cannot write is not found, for every verb", async () => {
    const { jar } = await signIn();
    const page = await fetch(`${base}/app/runs`, { headers: { cookie: cookieHeader(jar) } });
    const listed = await page.text();
    expect(listed).toContain("run-hello");
    expect(listed).not.toContain("run-secret");
    const csrf = /name="_csrf" value="([^"]+)"/.exec(listed)![1]!;
    const get = (p: string) => fetch(`${base}${p}`, { headers: { cookie: cookieHeader(jar) } });
    const post = (p: string, f: Record<string, string>) =>
      fetch(`${base}${p}`, { method: "POST", redirect: "manual", headers: { cookie: cookieHeader(jar) }, body: new URLSearchParams({ _csrf: csrf, ...f }) });
    expect((await get("/app/runs/run-hello")).status).toBe(200);
    expect((await get("/app/runs/run-secret")).status).toBe(404);
    expect((await get("/app/runs/run-secret/events")).status).toBe(404);
    expect((await post("/app/runs/run-secret/stop", {})).status).toBe(404);
    expect((await post("/app/runs/run-secret/messages", { text: "hi" })).status).toBe(404);
    expect((await get("/app/runs?repo=octo/secret")).status).toBe(200);
    expect(await (await get("/app/runs?repo=octo/secret")).text()).not.toContain("run-secret");
    // A task for a repo she cannot write is refused, and nothing is queued.
    expect((await post("/app/tasks", { repo: "octo/secret", text: "push to main" })).status).toBe(403);
    expect(await proc.queues.queues.agent.count()).toBe(0);
    expect(await proc.redis.get(`${prefix}:run-stop:run-secret`)).toBeNull();
  });

  it("a run whose thread has since been another repository's (a pre-upgrade shared thread) shows none of its conversation and takes no message", async () => {
    const thread = "5f0c6a52-8a1e-4c1b-9a57-3f1f5e7d2bff";
    await new RunIndex(proc.redis, prefix).put({
      runId: "run-moved",
      repo: "octo/hello",
      threadId: thread,
      trigger: "comment",
      source: "slack",
      requester: "dana",
      title: "run-moved",
      status: "running",
      queuedAt: Date.now(),
    });
    await proc.redis.set(`${prefix}:thread:${thread}:repo`, "octo/secret");
    const { jar } = await signIn();
    const page = await fetch(`${base}/app/runs/run-moved`, { headers: { cookie: cookieHeader(jar) } });
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('id="conversation-hidden"');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(text)![1]!;
    const sent = await fetch(`${base}/app/runs/run-moved/messages`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: cookieHeader(jar) },
      body: new URLSearchParams({ _csrf: csrf, text: "read me the secret" }),
    });
    expect(sent.status).toBe(409);
    expect(await proc.redis.keys(`${prefix}:followups:${thread}*`)).toEqual([]);
    // Its own repository's thread again: shown.
    await proc.redis.set(`${prefix}:thread:${thread}:repo`, "octo/hello");
    expect(await (await fetch(`${base}/app/runs/run-moved`, { headers: { cookie: cookieHeader(jar) } })).text()).not.toContain('id="conversation-hidden"');
  });

  it("a forged or tampered session cookie opens nothing", async () => {
    const { jar } = await signIn();
    const real = jar.get("osw_session")!;
    const [id, sig] = decodeURIComponent(real).split(".");
    for (const forged of [`${id}`, `${id}.${"A".repeat(43)}=`, `${"B".repeat(43)}.${sig}`, encodeURIComponent(`${id}x.${sig}`)]) {
      const res = await fetch(`${base}/app/runs`, { redirect: "manual", headers: { cookie: `osw_session=${forged}` } });
      expect(res.status, forged).toBe(302);
      expect(res.headers.get("location")).toMatch(/^\/auth\/sign-in/);
    }
    expect((await fetch(`${base}/app/runs`, { headers: { cookie: `osw_session=${real}` } })).status).toBe(200);
  });

  it("a callback is good once, only in the browser that started it, and `next` never leaves the dashboard", async () => {
    const { callback, jar, landed } = await signIn("//evil.example/app");
    expect(landed).toBe("/app");
    const replay = await fetch(callback, { redirect: "manual", headers: { cookie: cookieHeader(jar) } });
    expect(replay.status).toBe(400);
    // Another browser (no state cookie) cannot finish someone's sign-in (login CSRF).
    const login = await fetch(`${base}/auth/login`, { redirect: "manual" });
    const state = new URL(login.headers.get("location")!).searchParams.get("state");
    expect((await fetch(`${base}/auth/callback?code=c&state=${state}`, { redirect: "manual" })).status).toBe(400);
  });

  it("bull-board's API: no request from another site even with an admin's cookie, nothing for a non-admin", async () => {
    const admin = (await signIn("/app", "ada")).jar;
    const clean = (jar: Map<string, string>, headers: Record<string, string>) =>
      fetch(`${base}/app/admin/queues/api/queues/agent/clean/completed`, { method: "PUT", headers: { cookie: cookieHeader(jar), ...headers } });
    expect((await clean(admin, { origin: "http://evil.example", "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await clean(admin, { origin: "http://evil.example" })).status).toBe(403);
    expect((await clean(admin, {})).status).toBe(403);
    // Same origin gets past the CSRF guard, then bull-board's read-only mode refuses the write.
    expect((await clean(admin, { origin: base, "sec-fetch-site": "same-origin" })).status).toBe(405);
    expect((await fetch(`${base}/app/admin/queues/api/queues`, { headers: { cookie: cookieHeader(admin) } })).status).toBe(200);
    const dana = (await signIn()).jar;
    expect((await fetch(`${base}/app/admin/queues/api/queues`, { headers: { cookie: cookieHeader(dana) } })).status).toBe(403);
    expect((await clean(dana, { origin: base, "sec-fetch-site": "same-origin" })).status).toBe(403);
  });
});
