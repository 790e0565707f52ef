import { Redis } from "ioredis";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfig } from "../../../src/config/env.js";
import { sourceEventJobId } from "../../../src/http/source-routes.js";
import type { RunningProcess } from "../../../src/main.js";
import { confluenceSource } from "../../../src/sources/confluence/confluence-source.js";
import { sourceRunJobId } from "../../../src/sources/intake.js";
import { SettingsStore } from "../../../src/store/settings-store.js";
import { threadId } from "../../../src/shared/thread-id.js";
import { waitForJob, findJob } from "../../helpers/jobs.js";
import { redisSocket, redisUrl, testRedis, uniquePrefix } from "../../helpers/redis.js";
import { startTestProcess } from "../../helpers/test-process.js";
import { APP_URL, CLIENT_KEY, KID, SECRET_KEY, SITE, atlassianKeys, commentCreated, installToken, lifecycleBody, webhookToken } from "../../fixtures/confluence/connect.js";
import { confluenceBody } from "../../contracts/atlassian-contract.js";

const API = "https://api.github.com";
const WIKI = "https://acme.atlassian.net";
const ME = "557058:app-user";

/** Through the real pipeline: a signed install, then a Connect webhook → intake (re-read as the app) → one agent job. */
describe("Confluence through the source pipeline", () => {
  let proc: RunningProcess;
  let sourceRedis: Redis;
  const prefix = uniquePrefix();
  const post = (path: string, body: unknown, token: string) =>
    fetch(`http://127.0.0.1:${proc.port}${path}`, { method: "POST", headers: { "content-type": "application/json", authorization: `JWT ${token}` }, body: JSON.stringify(body) });

  beforeAll(async () => {
    const env = { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, APP_URL, OPEN_SWE_SECRET_KEY: SECRET_KEY, CONFLUENCE_SITES: SITE, PERMISSION_CACHE_SECONDS: "0", JOB_ATTEMPTS: "1" };
    sourceRedis = new Redis({ path: redisSocket(), maxRetriesPerRequest: null });
    const source = confluenceSource(readConfig({ ...env, LOG_LEVEL: "silent" }).env, {
      redis: sourceRedis,
      fetchInstallKey: async (kid) => (kid === KID ? atlassianKeys().publicKey : Promise.reject(new Error("404"))),
    });
    proc = await startTestProcess("all", env, { sources: [source], queues: ["source-event"] });
    expect((await post("/connect/installed", lifecycleBody("installed"), installToken({ url: "/connect/installed" }))).status).toBe(204);
  });
  afterAll(async () => {
    await proc?.stop();
    await sourceRedis?.quit();
  });

  const reread = (id: string, author: string, storage: string) => {
    nock(WIKI)
      .get("/wiki/rest/api/user/current")
      .reply(200, confluenceBody("user", { accountId: ME }));
    nock(WIKI)
      .get(`/wiki/rest/api/content/${id}`)
      .query(true)
      .reply(
        200,
        confluenceBody("content", { id, body: { storage: { value: storage } }, history: { createdBy: { accountId: author, displayName: author } }, container: { id: "98305", title: "Runbook" } }),
      );
  };

  it("a comment mentioning the app: re-read, mapped, authorized, acknowledged in the thread, one agent job", async () => {
    const settings = new SettingsStore(testRedis(), prefix);
    await settings.setIdentity("confluence:557058:alice", "dana");
    await settings.recordInstalled("octo/hello", { installationId: 7171 });
    reread("360449", "557058:alice", `<p><ac:link><ri:user ri:account-id="${ME}" /></ac:link> fix the deploy script repo:octo/hello</p>`);
    const ack = nock(WIKI)
      .post("/wiki/rest/api/content", (b: { ancestors: { id: string }[]; body: { storage: { value: string } } }) => b.ancestors[0]?.id === "360449" && b.body.storage.value.includes("On it"))
      .reply(200, confluenceBody("content", { id: "1" }));
    nock(API)
      .post("/app/installations/7171/access_tokens")
      .reply(201, { token: "ghs_x", expires_at: new Date(Date.now() + 3600_000).toISOString() });
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/users/dana").reply(200, { login: "dana", id: 31 });

    expect((await post("/webhooks/confluence", commentCreated(), webhookToken({ url: "/webhooks/confluence" }))).status).toBe(200);
    const dedupeKey = `confluence:${CLIENT_KEY}:comment:360449`;
    expect((await waitForJob(proc.queues.queues["source-event"], sourceEventJobId("confluence", dedupeKey))).returnvalue).toMatchObject({ outcome: "queued", repo: "octo/hello", login: "dana" });
    expect(ack.isDone()).toBe(true);
    const job = await findJob(proc.queues.queues.agent, sourceRunJobId("confluence", dedupeKey));
    const threadKey = `confluence:${SITE}:98305:360449`;
    expect(job?.data).toMatchObject({
      owner: "octo",
      repo: "hello",
      text: "fix the deploy script repo:octo/hello",
      threadId: threadId({ kind: "source", key: threadKey, repo: "octo/hello" }),
      source: { kind: "confluence", threadKey, ref: { kind: "comment", clientKey: CLIENT_KEY, pageId: "98305", commentId: "360449", threadRoot: "360449" } },
    });
  });

  // Signed 45 s back: a token is accepted once, and one signed in the same second as the first test's would be that token.
  it("a comment that does not mention the app is re-read and runs nothing, with no reply", async () => {
    reread("360450", "557058:alice", "<p>just a remark</p>");
    expect((await post("/webhooks/confluence", commentCreated({ id: "360450" }), webhookToken({ url: "/webhooks/confluence", iat: Math.floor(Date.now() / 1000) - 45 }))).status).toBe(200);
    const dedupeKey = `confluence:${CLIENT_KEY}:comment:360450`;
    expect((await waitForJob(proc.queues.queues["source-event"], sourceEventJobId("confluence", dedupeKey))).returnvalue).toEqual({ outcome: "message_gone" });
    expect(await findJob(proc.queues.queues.agent, sourceRunJobId("confluence", dedupeKey))).toBeUndefined();
  });
});
