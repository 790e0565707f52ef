import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sourceEventJobId } from "../../src/http/source-routes.js";
import { createLogger } from "../../src/logger.js";
import { startProcess, type RunningProcess } from "../../src/main.js";
import { readConfig } from "../../src/config/env.js";
import { CONFLUENCE_AUTOMATION_PATH, CONFLUENCE_SECRET_HEADER, confluenceSource } from "../../src/sources/confluence/confluence-source.js";
import { sourceRunJobId } from "../../src/sources/intake.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { threadId } from "../../src/shared/thread-id.js";
import { testConfig } from "../helpers/github-app.js";
import { findJob, waitForJob } from "../helpers/jobs.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { SITE } from "../fixtures/confluence/connect.js";
import { confluenceBody } from "../contracts/atlassian-contract.js";
import { AUTOMATION_ENV, AUTOMATION_SECRET, BASIC_AUTH, hubSignature } from "../sources/confluence/confluence-automation-fixture.js";
import { APP_ACCOUNT } from "../sources/confluence/confluence-fixture.js";

const API = "https://api.github.com";
const ALICE = "557058:alice";
const wiki = () => nock(`https://${SITE}`, { reqheaders: { authorization: BASIC_AUTH } });
const mentionStorage = (text: string) => `<p><ac:link><ri:user ri:account-id="${APP_ACCOUNT}" /></ac:link> ${text}</p>`;

/** Confluence, as the API token reads it: comment `id` on `pageId` in `space`, created `createdAt`. */
function nockComment(id: string, o: { pageId: string; space: string; createdAt: Date; text?: string }) {
  wiki()
    .get("/wiki/rest/api/user/current")
    .reply(200, confluenceBody("user", { accountId: APP_ACCOUNT }));
  wiki()
    .get(`/wiki/rest/api/content/${id}`)
    .query({ expand: "body.storage,history,container,space,ancestors" })
    .reply(
      200,
      confluenceBody("content", {
        id,
        type: "comment",
        body: { storage: { value: mentionStorage(o.text ?? "tidy the deploy script") } },
        history: { createdBy: { accountId: ALICE, displayName: "Alice" }, createdDate: o.createdAt.toISOString() as never },
        container: { id: o.pageId, title: "Runbook" },
        space: { key: o.space },
        ancestors: [],
      }),
    );
}

function nockWriter(installationId: number) {
  nock(API)
    .post(`/app/installations/${installationId}/access_tokens`)
    .reply(201, { token: "ghs_x", expires_at: new Date(Date.now() + 3600_000).toISOString() });
  nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
  nock(API).get("/users/dana").reply(200, { login: "dana", id: 31 });
}

/**
 * Issue 43: Confluence without Connect. An Automation rule posts ids to re-read, with a shared secret header or
 * an HMAC of the body; nothing in the body is trusted, a replay runs nothing, and a refusal says why (real web +
 * worker, real Redis, Confluence under nock).
 */
describe("Confluence Automation route: forged, replayed and lying requests (real web + worker)", () => {
  let proc: RunningProcess;
  const prefix = uniquePrefix();
  const lines: string[] = [];
  const post = (body: string, headers: Record<string, string>) =>
    fetch(`http://127.0.0.1:${proc.port}${CONFLUENCE_AUTOMATION_PATH}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const sourceEvent = (dedupeKey: string) => proc.queues.queues["source-event"].getJob(sourceEventJobId("confluence", dedupeKey));
  const body = (commentId: string, o: { pageId?: string; space?: string; timestamp?: number } = {}) =>
    JSON.stringify({
      event: "comment_created",
      page: { id: o.pageId ?? "98305" },
      comment: { id: commentId },
      ...(o.space ? { space: { key: o.space } } : {}),
      ...(o.timestamp ? { timestamp: o.timestamp } : {}),
    });

  beforeAll(async () => {
    proc = await startProcess({
      role: "all",
      config: testConfig({ QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, PERMISSION_CACHE_SECONDS: "0", JOB_ATTEMPTS: "1", ...AUTOMATION_ENV }),
      log: createLogger("info", "open-swe", { write: (l: string) => void lines.push(l) }),
      port: 0,
      host: "127.0.0.1",
      octokitDefaults: { retry: { enabled: false }, throttle: { enabled: false } },
      queues: ["source-event"],
    });
    const settings = new SettingsStore(testRedis(), prefix);
    await settings.setIdentity(`confluence:${ALICE}`, "dana");
    await settings.setSourceRepo("confluence:ENG", "octo/hello");
    await settings.setSourceRepo("confluence:HR", "octo/evil");
    await settings.recordInstalled("octo/hello", { installationId: 7373 });
  });
  afterAll(async () => proc?.stop());

  it("a bad signature is a 401 that says why (WWW-Authenticate, empty body) and one warning line; nothing is queued", async () => {
    const b = body("460001");
    const before = lines.length;
    const res = await post(b, { "x-hub-signature": hubSignature(b, "guessed-secret-0123456789") });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Signature error="X-Hub-Signature does not match the body"');
    expect(await res.text()).toBe("");
    await new Promise((r) => setTimeout(r, 100));
    const warnings = lines
      .slice(before)
      .map((l) => JSON.parse(l) as { level: number; msg: string; reason?: string; source?: string })
      .filter((l) => l.level >= 40);
    expect(warnings).toEqual([expect.objectContaining({ level: 40, msg: "source request refused", source: "confluence", reason: "X-Hub-Signature does not match the body" })]);
    // A wrong shared secret and an unsigned request say why too.
    const wrong = await post(b, { [CONFLUENCE_SECRET_HEADER]: `${AUTOMATION_SECRET}x` });
    expect([wrong.status, wrong.headers.get("www-authenticate")]).toEqual([401, 'Signature error="the shared secret header does not match"']);
    const bare = await post(b, {});
    expect([bare.status, bare.headers.get("www-authenticate")]).toEqual([401, 'Signature error="no signature header"']);
    expect(await sourceEvent(`confluence:${SITE}:comment:460001`)).toBeUndefined();
  });

  it("a signed body with an old timestamp is refused as a replay", async () => {
    const b = body("460002", { timestamp: Date.now() - 2 * 3600_000 });
    const res = await post(b, { "x-hub-signature": hubSignature(b) });
    expect([res.status, res.headers.get("www-authenticate")]).toEqual([401, 'Signature error="timestamp too old (a replay)"']);
    expect(await sourceEvent(`confluence:${SITE}:comment:460002`)).toBeUndefined();
  });

  it("a replay is refused: at once by the content id's claim, and after the claim expired by the re-read (the comment is hours old)", async () => {
    const id = "460003";
    const dedupeKey = `confluence:${SITE}:comment:${id}`;
    const headers = { [CONFLUENCE_SECRET_HEADER]: AUTOMATION_SECRET };
    nockComment(id, { pageId: "98305", space: "ENG", createdAt: new Date() });
    const ack = wiki()
      .post("/wiki/rest/api/content", (b: { ancestors?: { id: string }[]; body: { storage: { value: string } } }) => b.ancestors?.[0]?.id === id && b.body.storage.value.includes("On it"))
      .reply(200, confluenceBody("content", { id: "1" }));
    nockWriter(7373);
    expect((await post(body(id), headers)).status).toBe(200);
    expect((await waitForJob(proc.queues.queues["source-event"], sourceEventJobId("confluence", dedupeKey))).returnvalue).toMatchObject({ outcome: "queued" });
    expect(ack.isDone()).toBe(true);
    // The same request again: refused by the claim, nothing queued.
    expect(await (await post(body(id), headers)).json()).toEqual({ ok: true, duplicate: true });

    // A day later the claim has expired (its TTL); the captured request is sent again. The re-read says the
    // comment was created two hours before the request came in: nothing runs, nothing is said.
    await (await sourceEvent(dedupeKey))!.remove();
    await (await findJob(proc.queues.queues.agent, sourceRunJobId("confluence", dedupeKey)))!.remove();
    const dedupeKeys = await testRedis().keys(`${prefix}:source-dedupe:*${id}*`);
    expect(dedupeKeys).toHaveLength(1);
    await testRedis().del(...dedupeKeys);
    nockComment(id, { pageId: "98305", space: "ENG", createdAt: new Date(Date.now() - 2 * 3600_000) });
    expect((await post(body(id), headers)).status).toBe(200);
    expect((await waitForJob(proc.queues.queues["source-event"], sourceEventJobId("confluence", dedupeKey))).returnvalue).toMatchObject({ outcome: "message_gone" });
    expect(await findJob(proc.queues.queues.agent, sourceRunJobId("confluence", dedupeKey))).toBeUndefined();
  });

  it("a body naming another page and space: the re-read's page, space, thread and default repository win", async () => {
    const id = "460004";
    const dedupeKey = `confluence:${SITE}:comment:${id}`;
    // The body claims: page 77777 (someone else's) in space HR. Confluence says: page 98305 in ENG.
    nockComment(id, { pageId: "98305", space: "ENG", createdAt: new Date() });
    const ack = wiki()
      .post(
        "/wiki/rest/api/content",
        (b: { container: { id: string }; ancestors?: { id: string }[]; body: { storage: { value: string } } }) => b.container.id === "98305" && b.ancestors?.[0]?.id === id,
      )
      .reply(200, confluenceBody("content", { id: "2" }));
    // A fresh installation: the first test's token is cached for 7373.
    await new SettingsStore(testRedis(), prefix).recordInstalled("octo/hello", { installationId: 7374 });
    nockWriter(7374);
    expect((await post(body(id, { pageId: "77777", space: "HR" }), { [CONFLUENCE_SECRET_HEADER]: AUTOMATION_SECRET })).status).toBe(200);
    expect((await waitForJob(proc.queues.queues["source-event"], sourceEventJobId("confluence", dedupeKey))).returnvalue).toMatchObject({
      outcome: "queued",
      repo: "octo/hello",
      via: "default",
    });
    expect(ack.isDone()).toBe(true);
    const threadKey = `confluence:${SITE}:98305:${id}`;
    const job = await findJob(proc.queues.queues.agent, sourceRunJobId("confluence", dedupeKey));
    expect(job?.data).toMatchObject({
      owner: "octo",
      repo: "hello",
      threadId: threadId({ kind: "source", key: threadKey, repo: "octo/hello" }),
      source: { kind: "confluence", threadKey, ref: { kind: "comment", site: SITE, pageId: "98305", commentId: id, threadRoot: id, spaceKey: "ENG" } },
    });
  });
});

describe("the API-token client fails closed on a reference it has no credentials for", () => {
  const client = confluenceSource(readConfig({ ...AUTOMATION_ENV, LOG_LEVEL: "silent" }).env, null).client(createLogger("silent"));

  it("another site's reference (a forged job, a stale checkpoint): no re-read, no reply, no tools — without a call", async () => {
    const ref = { kind: "comment", site: "evil.atlassian.net", pageId: "98305", commentId: "1", threadRoot: "1", spaceKey: "ENG" };
    expect(await client.fetchMessage(ref)).toBeNull();
    await expect(client.reply(ref, "hi")).rejects.toThrow("no Confluence API token for evil.atlassian.net");
    expect(() => client.tools(ref)).toThrow("no Confluence API token for evil.atlassian.net");
    // A Connect reference on a server with no Connect: refused the same way.
    await expect(client.reply({ kind: "page", clientKey: "a1b2", pageId: "98305" }, "hi")).rejects.toThrow("the Confluence site uninstalled the app");
    // Neither or both of the credentials: not a reference at all.
    await expect(client.reply({ kind: "page", pageId: "98305" }, "hi")).rejects.toThrow(/not a Confluence reference/);
    await expect(client.reply({ kind: "page", clientKey: "a1b2", site: SITE, pageId: "98305" }, "hi")).rejects.toThrow(/not a Confluence reference/);
  });

  it("the token's own site without a known space: the write tools refuse outside the request's page", async () => {
    const tools = Object.fromEntries(client.tools({ kind: "comment", site: SITE, pageId: "98305", commentId: "1", threadRoot: "1" }).map((t) => [t.name, t]));
    expect(await tools.confluence_create_page!.invoke({ spaceKey: "HR", title: "x", body: "x" })).toMatch(/^Refused: I do not know which space/);
  });
});
