import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "node:util";
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { readConfig } from "../../src/config/env.js";
import { createLogger } from "../../src/logger.js";
import { startProcess, type RunningProcess } from "../../src/main.js";
import { startSetupServer, type SetupServer } from "../../src/setup/setup-server.js";
import { SETUP_INSTALLATIONS_FILE } from "../../src/setup/setup-installations.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { sendWebhook, testPrivateKey, WEBHOOK_SECRET } from "../helpers/github-app.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const API = "https://api.github.com";
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

const installationCreated = (id: number, repos: Array<[number, string]>) => ({
  action: "created",
  installation: { id, account: { login: "octo" } },
  repositories: repos.map(([rid, full_name]) => ({ id: rid, full_name, name: full_name.split("/")[1], private: false })),
  sender: { login: "octo" },
});

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() - start > ms) throw new Error(`timed out; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("no install is ever lost", () => {
  it("an install while the process is still in setup mode is recorded at the first normal start", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "setup-install-"));
    const dataDir = join(cwd, ".data");
    const log = createLogger("silent");
    const setup: SetupServer = await startSetupServer({ config: readConfig({ NO_SMEE_SETUP: "true", DATA_DIR: dataDir }, cwd), log, cwd, port: 0, host: "127.0.0.1" });
    closers.push(() => setup.stop());
    const delivery = {
      event: "installation",
      payload: installationCreated(4242, [
        [101, "octo/hello"],
        [102, "Octo/World"],
      ]),
    };

    // Before the app is registered nothing can check a signature: still no webhook route.
    expect((await sendWebhook(setup.port, delivery)).status).toBe(404);

    nock(API).post("/app-manifests/c0de/conversions").reply(201, { id: 4242, slug: "acme-swe", html_url: "https://github.com/apps/acme-swe", pem: testPrivateKey(), webhook_secret: WEBHOOK_SECRET });
    // The registration as the browser does it: the page's state and its cookie come back with the code.
    const page = await fetch(`http://127.0.0.1:${setup.port}/probot`);
    const state = /\?state=([A-Za-z0-9_-]+)/.exec(await page.text())![1]!;
    const cookie = page.headers.getSetCookie()[0]!.split(";")[0]!;
    const registered = await fetch(`http://127.0.0.1:${setup.port}/probot/setup?code=c0de&state=${state}`, { redirect: "manual", headers: { cookie } });
    expect(registered.headers.get("location")).toBe("https://github.com/apps/acme-swe/installations/new");

    // GitHub sends installation.created at once, to the setup-mode server.
    expect((await sendWebhook(setup.port, { ...delivery, secret: "forged" })).status).toBe(400);
    expect((await sendWebhook(setup.port, { event: "issues", payload: { action: "opened", installation: { id: 4242 } } })).status).toBe(202);
    expect((await sendWebhook(setup.port, delivery)).status).toBe(202);
    expect(statSync(join(dataDir, SETUP_INSTALLATIONS_FILE)).mode & 0o777).toBe(0o600);
    await setup.stop();

    // Restart into normal mode with what the setup flow wrote to .env.
    const prefix = uniquePrefix();
    const env = { ...parseEnv(readFileSync(join(cwd, ".env"), "utf8")), DATA_DIR: dataDir, QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, LOG_LEVEL: "silent" } as Record<string, string>;
    const proc: RunningProcess = await startProcess({ role: "web", config: readConfig(env, cwd), log, port: 0, host: "127.0.0.1" });
    closers.push(() => proc.stop());
    const settings = new SettingsStore(testRedis(), prefix);
    expect(await settings.listInstalled()).toEqual({ "octo/hello": { installationId: 4242, repoId: 101 }, "octo/world": { installationId: 4242, repoId: 102 } });
    expect(existsSync(join(dataDir, SETUP_INSTALLATIONS_FILE))).toBe(false);
  }, 60_000);

  it("the worker's start-up sync rebuilds the record from GitHub's API, every page; suspended installations and stale entries go", async () => {
    const prefix = uniquePrefix();
    const settings = new SettingsStore(testRedis(), prefix);
    await settings.recordInstalled("gone/repo", { installationId: 9, repoId: 9 });
    await settings.recordInstalled("octo/paused", { installationId: 3, repoId: 30 });
    const token = (id: number) =>
      nock(API)
        .post(`/app/installations/${id}/access_tokens`)
        .reply(201, { token: `ghs_${id}`, expires_at: new Date(Date.now() + 3600_000).toISOString() });
    nock(API)
      .get("/app/installations")
      .query({ per_page: "100" })
      .reply(200, [{ id: 1, account: { login: "octo" }, suspended_at: null }], { link: `<${API}/app/installations?per_page=100&page=2>; rel="next"` })
      .get("/app/installations")
      .query({ per_page: "100", page: "2" })
      .reply(200, [
        { id: 2, account: { login: "acme" }, suspended_at: null },
        { id: 3, account: { login: "paused" }, suspended_at: "2026-11-01T00:00:00Z" },
      ]);
    token(1);
    token(2);
    nock(API)
      .get("/installation/repositories")
      .query({ per_page: "100" })
      .matchHeader("authorization", "token ghs_1")
      .reply(200, { total_count: 2, repositories: [{ id: 11, full_name: "octo/Hello" }] }, { link: `<${API}/installation/repositories?per_page=100&page=2>; rel="next"` })
      .get("/installation/repositories")
      .query({ per_page: "100", page: "2" })
      .matchHeader("authorization", "token ghs_1")
      .reply(200, { total_count: 2, repositories: [{ id: 12, full_name: "octo/world" }] })
      .get("/installation/repositories")
      .query({ per_page: "100" })
      .matchHeader("authorization", "token ghs_2")
      .reply(200, { total_count: 1, repositories: [{ id: 21, full_name: "acme/api" }] });
    const proc = await startTestProcess("worker", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, DATA_DIR: mkdtempSync(join(tmpdir(), "sync-")) }, { queues: ["ci-monitor"] });
    closers.push(() => proc.stop());
    const record = await until(
      () => settings.listInstalled(),
      (r) => "acme/api" in r && !("gone/repo" in r),
    );
    expect(record).toEqual({
      "octo/hello": { installationId: 1, repoId: 11 },
      "octo/world": { installationId: 1, repoId: 12 },
      "acme/api": { installationId: 2, repoId: 21 },
    });
    const schedulers = await proc.queues.queues["ci-monitor"].getJobSchedulers();
    expect(schedulers.find((s) => s.key === "installations-sync")).toMatchObject({ every: 3_600_000, name: "installations" });
  }, 60_000);

  it("a delivery naming an installation the record does not know queues a sync (once), without a GitHub call on the webhook path", async () => {
    const prefix = uniquePrefix();
    const settings = new SettingsStore(testRedis(), prefix);
    await settings.recordInstalled("octo/hello", { installationId: 1, repoId: 11 });
    const proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, DATA_DIR: mkdtempSync(join(tmpdir(), "sync-")) });
    closers.push(() => proc.stop());
    const ping = (id: number) =>
      sendWebhook(proc.port!, {
        event: "star",
        payload: { action: "created", installation: { id }, repository: { id: 5, name: "x", full_name: "new/x", owner: { login: "new" } }, sender: { login: "a" } },
      });
    const syncJobs = async () => (await proc.queues.queues["ci-monitor"].getJobs(["waiting", "delayed", "prioritized"])).filter((j) => j.data.reason === "installations");
    expect((await ping(1)).status).toBeLessThan(300);
    expect(await syncJobs()).toEqual([]);
    expect((await ping(77)).status).toBeLessThan(300);
    expect((await ping(77)).status).toBeLessThan(300);
    const jobs = await until(syncJobs, (j) => j.length > 0);
    expect(jobs.map((j) => j.data)).toEqual([expect.objectContaining({ reason: "installations", provenance: expect.objectContaining({ via: "system:installation-sync" }) })]);
  }, 60_000);
});
