import type { StructuredToolInterface } from "@langchain/core/tools";
import { Redis } from "ioredis";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfig } from "../../src/config/env.js";
import { sourceEventJobId } from "../../src/http/source-routes.js";
import type { RunningProcess } from "../../src/main.js";
import { ConfluenceApi } from "../../src/sources/confluence/confluence-api.js";
import { confluenceSource } from "../../src/sources/confluence/confluence-source.js";
import { confluenceTools } from "../../src/sources/confluence/confluence-tools.js";
import { sourceRunJobId } from "../../src/sources/intake.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { threadId } from "../../src/shared/thread-id.js";
import { waitForJob, findJob } from "../helpers/jobs.js";
import { redisSocket, redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import {
  APP_KEY,
  APP_URL,
  CLIENT_KEY,
  CONFLUENCE_BASE,
  KID,
  SECRET_KEY,
  SHARED_SECRET,
  SITE,
  atlassianKeys,
  commentCreated,
  installToken,
  lifecycleBody,
  webhookToken,
} from "../fixtures/confluence/connect.js";
import { confluenceBody } from "../contracts/atlassian-contract.js";

const API = "https://api.github.com";
const WIKI = "https://acme.atlassian.net";
const ME = "557058:app-user";

/**
 * Issue 21, finding 5: Connect's token signs the method and URL, not the body. A body that lies about the
 * comment's space and thread must not choose the default repository, the thread, where the reply goes or
 * the space the tools may write in: those come from the re-read content.
 */
describe("Confluence: the webhook body's space and thread claims never reach the run (real web + worker)", () => {
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

  it("a reply claimed into a victim's thread in space HR: the run is in the comment's own thread, in space ENG, on ENG's repository", async () => {
    const settings = new SettingsStore(testRedis(), prefix);
    await settings.setIdentity("confluence:557058:alice", "dana");
    await settings.setSourceRepo("confluence:ENG", "octo/hello");
    await settings.setSourceRepo("confluence:HR", "octo/evil");
    await settings.recordInstalled("octo/hello", { installationId: 7272 });
    // The body claims: space HR, a reply in thread 360001 (someone else's conversation).
    const body = commentCreated({ id: "360777", inReplyTo: "360001" });
    const lying = { ...body, comment: { ...body.comment, spaceKey: "HR", parent: { ...body.comment.parent, spaceKey: "HR" } } };
    // Confluence, asked as the app: a top-level comment in space ENG.
    nock(WIKI)
      .get("/wiki/rest/api/user/current")
      .reply(200, confluenceBody("user", { accountId: ME }));
    nock(WIKI)
      .get("/wiki/rest/api/content/360777")
      .query({ expand: "body.storage,history,container,space,ancestors" })
      .reply(
        200,
        confluenceBody("content", {
          id: "360777",
          type: "comment",
          body: { storage: { value: `<p><ac:link><ri:user ri:account-id="${ME}" /></ac:link> tidy the deploy script</p>` } },
          history: { createdBy: { accountId: "557058:alice", displayName: "Alice" } },
          container: { id: "98305", title: "Runbook" },
          space: { key: "ENG" },
          ancestors: [],
        }),
      );
    const ack = nock(WIKI)
      .post("/wiki/rest/api/content", (b: { ancestors?: { id: string }[]; body: { storage: { value: string } } }) => b.ancestors?.[0]?.id === "360777" && b.body.storage.value.includes("On it"))
      .reply(200, confluenceBody("content", { id: "1" }));
    nock(API)
      .post("/app/installations/7272/access_tokens")
      .reply(201, { token: "ghs_x", expires_at: new Date(Date.now() + 3600_000).toISOString() });
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/users/dana").reply(200, { login: "dana", id: 31 });

    expect((await post("/webhooks/confluence", lying, webhookToken({ url: "/webhooks/confluence" }))).status).toBe(200);
    const dedupeKey = `confluence:${CLIENT_KEY}:comment:360777`;
    expect((await waitForJob(proc.queues.queues["source-event"], sourceEventJobId("confluence", dedupeKey))).returnvalue).toMatchObject({ outcome: "queued", repo: "octo/hello", via: "default" });
    expect(ack.isDone()).toBe(true);
    const threadKey = `confluence:${SITE}:98305:360777`;
    const job = await findJob(proc.queues.queues.agent, sourceRunJobId("confluence", dedupeKey));
    expect(job?.data).toMatchObject({
      owner: "octo",
      repo: "hello",
      threadId: threadId({ kind: "source", key: threadKey, repo: "octo/hello" }),
      source: { kind: "confluence", threadKey, ref: { kind: "comment", pageId: "98305", commentId: "360777", threadRoot: "360777", spaceKey: "ENG" } },
    });
  });
});

describe("Confluence write tools fail closed when no space is known", () => {
  const api = new ConfluenceApi(async () => ({ clientKey: CLIENT_KEY, baseUrl: CONFLUENCE_BASE, sharedSecret: SHARED_SECRET }), APP_KEY);
  const tools: Record<string, StructuredToolInterface> = Object.fromEntries(
    confluenceTools(api, { kind: "comment", clientKey: CLIENT_KEY, pageId: "98305", commentId: "360449", threadRoot: "360449" }).map((t) => [t.name, t]),
  );

  it("creating a page anywhere, or updating another page, is refused without a write; a comment on the request's own page still works", async () => {
    expect(await tools.confluence_create_page!.invoke({ spaceKey: "HR", title: "x", body: "x" })).toMatch(/^Refused: I do not know which space/);
    nock(WIKI)
      .get("/wiki/rest/api/content/98400")
      .query(true)
      .reply(200, confluenceBody("content", { id: "98400", title: "Payroll", space: { key: "HR" }, version: { number: 2 } }));
    expect(await tools.confluence_update_page!.invoke({ pageId: "98400", body: "gone" })).toMatch(/^Refused: I do not know which space/);
    // A page whose read names no space either: "no space" never matches "no space".
    nock(WIKI)
      .get("/wiki/rest/api/content/98402")
      .query(true)
      .reply(200, confluenceBody("content", { id: "98402", title: "Loose", version: { number: 1 } }));
    expect(await tools.confluence_update_page!.invoke({ pageId: "98402", body: "gone" })).toMatch(/^Refused: /);
    nock(WIKI)
      .get("/wiki/rest/api/content/98401")
      .query(true)
      .reply(200, confluenceBody("content", { id: "98401", title: "Other", space: { key: "ENG" }, version: { number: 2 } }));
    expect(await tools.confluence_comment!.invoke({ pageId: "98401", body: "hi" })).toMatch(/^Refused: I do not know which space/);
    nock(WIKI)
      .post("/wiki/rest/api/content", (b: { container: { id: string } }) => b.container.id === "98305")
      .reply(200, confluenceBody("content", { id: "360900" }));
    expect(await tools.confluence_comment!.invoke({ body: "on the request's page" })).toBe("Comment 360900 posted on page 98305.");
  });
});
