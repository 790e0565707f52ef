// Attack (issue #42, finding 9): a writer removed from a repository on GitHub kept reading its runs —
// the run page with its pushed diff, "show all" of a message, the live stream — for the rest of the
// 12-hour dashboard session, because reads checked only the sign-in snapshot. Every run read now asks
// GitHub again (cached at most PERMISSION_CACHE_SECONDS, here 1 s): no read access is a 404, GitHub
// not answering a 503 that says so, never "you have no access".
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import type { RunningProcess } from "../../src/main.js";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { RunIndex } from "../../src/store/run-index.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { CLIENT_ID, CLIENT_SECRET, mockSignIn } from "../dashboard/browser.js";
import { cookieHeader, keep } from "../helpers/cookie-jar.js";
import { mockRepoRole } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const THREAD = "6a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

describe("security: a writer removed on GitHub stops reading the repository's runs once the cache window passes", () => {
  let proc: RunningProcess;
  let base: string;
  const prefix = uniquePrefix();
  beforeAll(async () => {
    proc = await startTestProcess("web", {
      QUEUE_REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      GITHUB_CLIENT_ID: CLIENT_ID,
      GITHUB_CLIENT_SECRET: CLIENT_SECRET,
      PERMISSION_CACHE_SECONDS: "1",
      PERMISSION_CHECK_BUDGET_SECONDS: "1",
    });
    base = `http://127.0.0.1:${proc.port}`;
    await new SettingsStore(proc.redis, prefix).recordInstalled("octo/hello", { installationId: 4242 });
    await new RunIndex(proc.redis, prefix).put({
      runId: "run-r",
      repo: "octo/hello",
      threadId: THREAD,
      trigger: "comment",
      source: "github",
      requester: "carl",
      title: "carl's run",
      status: "running",
      queuedAt: Date.now(),
    });
    await new RedisSaver({ redis: proc.redis, prefix: `${prefix}:ckpt` }).put(
      { configurable: { thread_id: THREAD, checkpoint_ns: "" } },
      { ...emptyCheckpoint(), id: uuid6(1), channel_values: { messages: [new HumanMessage("go"), new AIMessage("SECRET-PLAN")] }, channel_versions: { messages: 1 } },
      { source: "loop", step: 1, parents: {} },
      { messages: 1 },
    );
  });
  afterAll(async () => {
    nock.cleanAll();
    await proc?.stop();
  });

  async function signIn(): Promise<Map<string, string>> {
    const jar = new Map<string, string>();
    const login = await fetch(`${base}/auth/login?next=/app`, { redirect: "manual" });
    keep(jar, login);
    const authorize = new URL(login.headers.get("location")!);
    mockSignIn({ login: "dana", id: 31, repos: [{ full_name: "octo/hello", push: true }] }, () => authorize.searchParams.get("code_challenge") ?? undefined);
    keep(jar, await fetch(`${base}/auth/callback?code=code-1&state=${authorize.searchParams.get("state")}`, { redirect: "manual", headers: { cookie: cookieHeader(jar) } }));
    return jar;
  }

  /** The cached answers about dana on octo/hello have expired (the event the cache window's end is). */
  async function cacheExpired(): Promise<void> {
    const keys = [`${prefix}:perm:octo/hello:dana`, `${prefix}:perm-read:octo/hello:dana`];
    while ((await proc.redis.exists(...keys)) > 0) await new Promise((r) => setTimeout(r, 50));
  }

  it("the run page (and its diff), show all and the live stream: 200 while a writer, refused after", async () => {
    const jar = await signIn();
    const get = (p: string, headers: Record<string, string> = {}) => fetch(`${base}${p}`, { redirect: "manual", headers: { cookie: cookieHeader(jar), ...headers } });
    mockRepoRole("dana", "write");
    const page = await get("/app/runs/run-r");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("SECRET-PLAN");
    expect(await (await get("/app/runs/run-r/messages/1")).text()).toBe("SECRET-PLAN");

    // Removed from the repository on GitHub; her session still names it.
    await cacheExpired();
    const none = mockRepoRole("dana", "none", { persist: true });
    for (const path of ["/app/runs/run-r", "/app/runs/run-r/messages/1", "/app/runs/run-r/subagents/0/messages/0"]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).not.toContain("SECRET-PLAN");
    }
    const live = await get("/app/runs/run-r/events", { accept: "text/event-stream" });
    expect(live.status).toBe(404);
    expect(live.headers.get("content-type")).not.toContain("text/event-stream");
    expect(await live.text()).not.toContain("SECRET-PLAN");
    none.persist(false);
    nock.cleanAll();
  });

  it("GitHub not answering is an outage (503, said as one), never reported as no access, nor cached", async () => {
    const jar = await signIn();
    const get = (p: string) => fetch(`${base}${p}`, { redirect: "manual", headers: { cookie: cookieHeader(jar) } });
    await cacheExpired();
    nock("https://api.github.com")
      .post("/app/installations/4242/access_tokens")
      .optionally()
      .reply(201, { token: "ghs_t", expires_at: new Date(Date.now() + 3600_000).toISOString() });
    nock("https://api.github.com").get("/repos/octo/hello/collaborators/dana/permission").times(4).reply(502, { message: "Bad Gateway" });
    const page = await get("/app/runs/run-r");
    expect(page.status).toBe(503);
    const text = await page.text();
    expect(text).toContain("GitHub did not answer");
    expect(text).not.toContain("SECRET-PLAN");
    const live = await get("/app/runs/run-r/events");
    expect(live.status).toBe(503);
    expect(await live.text()).toContain("GitHub could not be reached");
    expect(await proc.redis.exists(`${prefix}:perm-read:octo/hello:dana`)).toBe(0);
    nock.cleanAll();
  });
});
