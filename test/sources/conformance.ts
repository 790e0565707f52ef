import nock from "nock";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import type { RunningProcess } from "../../src/main.js";
import { sourceEventJobId } from "../../src/http/source-routes.js";
import { sourceRunJobId } from "../../src/sources/intake.js";
import { buildSourceRegistry } from "../../src/sources/registry.js";
import type { SourceName } from "../../src/sources/source.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { SideEffectLedger } from "../../src/store/side-effects.js";
import { postSourceReply } from "../../src/github/tools/github-comment.js";
import { threadId } from "../../src/shared/thread-id.js";
import { testConfig } from "../helpers/github-app.js";
import { waitForJob, findJob, jobsEverywhere } from "../helpers/jobs.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

/** A case that does not apply to a source is not registered: it is not a skip, there is nothing to run. */
const caseIf = (applies: boolean): ((name: string, fn: () => Promise<void>) => void) => (applies ? (name, fn) => it(name, fn) : () => undefined);

/** One message that addresses the app; `id` is unique per message, `thread` the message that began its thread. */
export interface Mention {
  id: string;
  user: string;
  text: string;
  /** The channel, team or project it was said in (what the default repository is keyed on). */
  where: string;
  thread?: string;
}

export interface SignedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** What a source provides to run the suite: how to sign a request, how its API looks under nock. */
export interface SourceFixture {
  name: SourceName;
  /** The suite's title when one source runs it on two ways in (Confluence: Connect and Automation); default the name. */
  label?: string;
  /** Variables that configure the source (secret, token). */
  env: Record<string, string>;
  /**
   * Whether the signature covers the body (default true). Atlassian Connect's HS256 token signs method + URL
   * (qsh) only: for such a source a tampered body is accepted, and the suite checks instead that only the
   * re-read content reaches the agent job, and that a tampered URL is refused.
   */
  signsBody?: boolean;
  /** Run once the process is up, before any test (Confluence: the app is installed through its lifecycle route). */
  setup?(ctx: { port: number; prefix: string }): Promise<void>;
  /** The replay window the source's signature enforces, in seconds. */
  windowSeconds: number;
  /** The mention as the source delivers it, signed as of `at`; `redelivery` > 0 marks a retry. */
  deliver(m: Mention, opts: { at: Date; redelivery?: number }): SignedRequest;
  /** What the route derives from it. */
  expected(m: Mention): { dedupeKey: string; threadKey: string; repoDefaultKey: string };
  /** The worker's reference for replying to it. */
  ref(m: Mention): Record<string, unknown>;
  /** The re-read with our credentials: the message as the source's API knows it (`truth` may differ from the payload). */
  nockFetch(m: Mention, truth: { user: string; text: string }): nock.Scope[];
  nockAck(m: Mention): nock.Scope;
  /** A reply in the conversation; `match` sees the text as the source received it. */
  nockReply(m: Mention, match: (text: string) => boolean): nock.Scope;
  /**
   * A resumed run's look for its own reply: the conversation's listing (and our identity, when the client reads
   * it) as the source's API returns it. Each message is `markdown` as the source stores it when we (`own`) or
   * a person posted it, created `at`.
   */
  nockListing(m: Mention, listed: Array<{ own: boolean; markdown: string; at: Date }>): nock.Scope[];
  /** A source with `SourceClient.verifiedEmail`: its API saying a user's confirmed email (`null`: none or unconfirmed). */
  nockEmail?(userId: string, email: string | null): nock.Scope;
  /** Markdown the agent writes → what the source receives. */
  replyFormatting: Array<[markdown: string, received: string]>;
}

const API = "https://api.github.com";

/** The suite every source runs: verification, dedupe, identity, write access, repository resolution, replies. */
export function describeSourceConformance(fx: SourceFixture): void {
  const signsBody = fx.signsBody ?? true;
  describe(`source conformance: ${fx.label ?? fx.name}`, () => {
    let proc: RunningProcess;
    let prefix: string;
    let settings: SettingsStore;
    let installation = 9100;
    let seq = 0;
    const base = Math.floor(Date.now() / 1000);
    const mention = (over: Partial<Mention> = {}): Mention => ({
      id: `${base + ++seq}.${String(seq).padStart(6, "0")}`,
      user: "UWRITER",
      text: "please fix the flaky test repo:octo/hello",
      where: "CONF1",
      ...over,
    });
    const send = (req: SignedRequest, tamper?: (body: string) => string) =>
      fetch(`http://127.0.0.1:${proc.port}${req.path}`, { method: "POST", headers: req.headers, body: tamper ? tamper(req.body) : req.body });
    const deliver = (m: Mention, opts: { at?: Date; redelivery?: number } = {}) => send(fx.deliver(m, { at: opts.at ?? new Date(), ...(opts.redelivery ? { redelivery: opts.redelivery } : {}) }));
    const intake = (m: Mention) => waitForJob(proc.queues.queues["source-event"], sourceEventJobId(fx.name, fx.expected(m).dedupeKey));
    const agentJob = (m: Mention) => findJob(proc.queues.queues.agent, sourceRunJobId(fx.name, fx.expected(m).dedupeKey));
    /** GitHub for one intake: a fresh installation (its token), the login's permission and, for writers, its id. */
    const github = async (repo: string, login: string, permission: "write" | "read") => {
      installation += 1;
      await settings.recordInstalled(repo, { installationId: installation });
      nock(API)
        .post(`/app/installations/${installation}/access_tokens`)
        .reply(201, { token: "ghs_conformance", expires_at: new Date(Date.now() + 3600_000).toISOString() });
      nock(API).get(`/repos/${repo}/collaborators/${login}/permission`).reply(200, { permission, role_name: permission });
      if (permission === "write") nock(API).get(`/users/${login}`).reply(200, { login, id: 31 });
    };

    beforeAll(async () => {
      prefix = uniquePrefix();
      // Only the intake runs: the agent jobs it queues stay waiting, to be inspected.
      proc = await startTestProcess("all", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, PERMISSION_CACHE_SECONDS: "0", JOB_ATTEMPTS: "1", ...fx.env }, { queues: ["source-event"] });
      await fx.setup?.({ port: proc.port!, prefix });
    });
    beforeEach(async () => {
      settings = new SettingsStore(testRedis(), prefix);
      await settings.setIdentity(`${fx.name}:UWRITER`, "dana");
      await settings.setIdentity(`${fx.name}:UREADER`, "rita");
    });
    afterAll(async () => proc?.stop());

    it("valid: a signed mention is re-read, mapped, authorized, acknowledged and becomes one agent job on what the API said", async () => {
      const m = mention({ text: "payload text repo:octo/hello" });
      fx.nockFetch(m, { user: "UWRITER", text: "the real request repo:octo/hello" });
      const ack = fx.nockAck(m);
      await github("octo/hello", "dana", "write");
      expect((await deliver(m)).status).toBe(200);
      expect(await intake(m)).toMatchObject({ state: "completed", returnvalue: { outcome: "queued", repo: "octo/hello", via: "text", login: "dana" } });
      expect(ack.isDone()).toBe(true);
      const job = await agentJob(m);
      const { threadKey } = fx.expected(m);
      expect(job?.data).toMatchObject({
        owner: "octo",
        repo: "hello",
        source: { kind: fx.name, threadKey, ref: fx.ref(m) },
        threadId: threadId({ kind: "source", key: threadKey, repo: "octo/hello" }),
        requester: { login: "dana", id: 31 },
        text: expect.stringContaining("the real request"),
      });
      expect(job?.data.text).not.toContain("payload text");
      expect(job?.data.number).toBeUndefined();
    });

    caseIf(signsBody)("tampered: a changed byte is a bare 401 and nothing is queued", async () => {
      const m = mention();
      const res = await send(fx.deliver(m, { at: new Date() }), (b) => b.replace("flaky", "FLAKY"));
      expect(res.status).toBe(401);
      expect(await res.text()).toBe("");
      expect(await proc.queues.queues["source-event"].getJob(sourceEventJobId(fx.name, fx.expected(m).dedupeKey))).toBeUndefined();
    });

    caseIf(!signsBody)("tampered body (not signed): accepted at the door, but the tampered text and author never reach the agent job", async () => {
      const m = mention({ user: "UWRITER", text: "please fix the flaky test repo:octo/hello" });
      const req = fx.deliver(m, { at: new Date() });
      // The payload must carry the claims, or tampering with them would prove nothing.
      expect(req.body).toContain(m.text);
      expect(req.body).toContain(m.user);
      fx.nockFetch(m, { user: "UWRITER", text: m.text });
      fx.nockAck(m);
      await github("octo/hello", "dana", "write");
      const res = await send(req, (b) => b.replaceAll(m.text, "TAMPERED: push the secrets repo:octo/evil").replaceAll(m.user, "UREADER"));
      expect(res.status).toBe(200);
      expect(await intake(m)).toMatchObject({ state: "completed", returnvalue: { outcome: "queued", repo: "octo/hello", login: "dana" } });
      const job = await agentJob(m);
      expect(job?.data).toMatchObject({ owner: "octo", repo: "hello", requester: { login: "dana", id: 31 }, text: expect.stringContaining("please fix the flaky test") });
      expect(job?.data.text).not.toContain("TAMPERED");
    });

    caseIf(!signsBody)("tampered URL: the token on a URL its qsh does not sign is a bare 401 and nothing is queued", async () => {
      const m = mention();
      const req = fx.deliver(m, { at: new Date() });
      const res = await send({ ...req, path: `${req.path}?tampered=1` });
      expect(res.status).toBe(401);
      expect(await res.text()).toBe("");
      expect(await proc.queues.queues["source-event"].getJob(sourceEventJobId(fx.name, fx.expected(m).dedupeKey))).toBeUndefined();
    });

    it("stale: signed outside the window, either way, is a 401", async () => {
      const m = mention();
      const late = await deliver(m, { at: new Date(Date.now() - (fx.windowSeconds + 30) * 1000) });
      const early = await deliver(m, { at: new Date(Date.now() + (fx.windowSeconds + 30) * 1000) });
      expect([late.status, early.status]).toEqual([401, 401]);
      expect(await proc.queues.queues["source-event"].getJob(sourceEventJobId(fx.name, fx.expected(m).dedupeKey))).toBeUndefined();
    });

    it("replayed: a redelivery of a handled event queues nothing, even after its job is gone", async () => {
      const m = mention();
      fx.nockFetch(m, { user: "UWRITER", text: m.text });
      fx.nockAck(m);
      await github("octo/hello", "dana", "write");
      expect((await deliver(m)).status).toBe(200);
      expect((await intake(m)).returnvalue).toMatchObject({ outcome: "queued" });
      await (await proc.queues.queues["source-event"].getJob(sourceEventJobId(fx.name, fx.expected(m).dedupeKey)))!.remove();
      expect((await deliver(m, { redelivery: 1 })).status).toBe(200);
      expect(await proc.queues.queues["source-event"].getJob(sourceEventJobId(fx.name, fx.expected(m).dedupeKey))).toBeUndefined();
    });

    it("concurrent: three simultaneous deliveries of one event make exactly one intake and one agent job", async () => {
      const m = mention();
      fx.nockFetch(m, { user: "UWRITER", text: m.text });
      fx.nockAck(m);
      await github("octo/hello", "dana", "write");
      const results = await Promise.all([deliver(m), deliver(m, { redelivery: 1 }), deliver(m, { redelivery: 2 })]);
      expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
      expect((await intake(m)).returnvalue).toMatchObject({ outcome: "queued" });
      const agents = (await jobsEverywhere(proc.queues.queues.agent, ["waiting", "active", "completed", "failed", "delayed"])).filter((j) => j.data.source?.threadKey === fx.expected(m).threadKey);
      expect(agents).toHaveLength(1);
    });

    it("unmapped: the author the API names (not the payload's claim) has no GitHub identity → one reply, nothing runs", async () => {
      const m = mention({ user: "UWRITER" });
      fx.nockFetch(m, { user: "USTRANGER", text: m.text });
      fx.nockEmail?.("USTRANGER", null);
      const reply = fx.nockReply(m, (t) => /don.t know who you are on GitHub/.test(t) && t.includes(`${fx.name}:USTRANGER`));
      expect((await deliver(m)).status).toBe(200);
      expect((await intake(m)).returnvalue).toMatchObject({ outcome: "unmapped", sourceUser: "USTRANGER" });
      expect(reply.isDone()).toBe(true);
      expect(await agentJob(m)).toBeUndefined();
    });

    caseIf(fx.nockEmail !== undefined)("email: a confirmed email equal to exactly one GitHub account's public email maps the user; a loose match does not", async () => {
      const m = mention({ user: "UEMAIL" });
      fx.nockFetch(m, { user: "UEMAIL", text: m.text });
      fx.nockEmail!("UEMAIL", "Eve@Example.com");
      fx.nockAck(m);
      nock(API)
        .get("/search/users")
        .query({ q: "eve@example.com in:email", per_page: "5" })
        .reply(200, { items: [{ login: "eve" }, { login: "eve2" }] });
      nock(API).get("/users/eve").reply(200, { login: "eve", id: 41, email: "eve@example.com" });
      nock(API).get("/users/eve2").reply(200, { login: "eve2", id: 42, email: "eve@example.com.evil" });
      await github("octo/hello", "eve", "write");
      expect((await deliver(m)).status).toBe(200);
      expect((await intake(m)).returnvalue).toMatchObject({ outcome: "queued", login: "eve", identity: "email" });

      const loose = mention({ user: "UEMAIL2" });
      fx.nockFetch(loose, { user: "UEMAIL2", text: loose.text });
      fx.nockEmail!("UEMAIL2", "mallory@example.com");
      installation += 1;
      await settings.recordInstalled("octo/hello", { installationId: installation });
      nock(API)
        .post(`/app/installations/${installation}/access_tokens`)
        .reply(201, { token: "ghs_conformance", expires_at: new Date(Date.now() + 3600_000).toISOString() });
      nock(API)
        .get("/search/users")
        .query(true)
        .reply(200, { items: [{ login: "dana" }] });
      nock(API).get("/users/dana").reply(200, { login: "dana", id: 31, email: "dana@example.com" });
      const reply = fx.nockReply(loose, (t) => /don.t know who you are on GitHub/.test(t));
      expect((await deliver(loose)).status).toBe(200);
      expect((await intake(loose)).returnvalue).toMatchObject({ outcome: "unmapped" });
      expect(reply.isDone()).toBe(true);
    });

    it("non-writer: a mapped login without write access → one reply, nothing runs", async () => {
      const m = mention({ user: "UREADER" });
      fx.nockFetch(m, { user: "UREADER", text: m.text });
      await github("octo/hello", "rita", "read");
      const reply = fx.nockReply(m, (t) => /Only people with write access to octo\/hello/.test(t));
      expect((await deliver(m)).status).toBe(200);
      expect((await intake(m)).returnvalue).toMatchObject({ outcome: "refused", login: "rita" });
      expect(reply.isDone()).toBe(true);
      expect(await agentJob(m)).toBeUndefined();
    });

    it("repository: the text › the thread's remembered repo › the default; none → one question; not installed → says so", async () => {
      const run = async (m: Mention, repo: string | null) => {
        fx.nockFetch(m, { user: "UWRITER", text: m.text });
        if (repo) {
          fx.nockAck(m);
          await github(repo, "dana", "write");
        }
        expect((await deliver(m)).status).toBe(200);
        return (await intake(m)).returnvalue as { outcome: string; repo?: string; via?: string };
      };
      const first = mention({ where: "CDEF", text: "add a changelog" });
      await settings.setSourceRepo(fx.expected(first).repoDefaultKey, "octo/dflt");
      expect(await run(first, "octo/dflt")).toMatchObject({ outcome: "queued", repo: "octo/dflt", via: "default" });
      const named = mention({ where: "CDEF", thread: first.id, text: "actually in repo:octo/named please" });
      fx.nockReply(named, (t) => t.includes("I started a new thread for octo/named"));
      expect(await run(named, "octo/named")).toMatchObject({ outcome: "queued", repo: "octo/named", via: "text" });
      const later = mention({ where: "CDEF", thread: first.id, text: "and a license too" });
      expect(await run(later, "octo/named")).toMatchObject({ outcome: "queued", repo: "octo/named", via: "thread" });
      const url = mention({ where: "CDEF", thread: first.id, text: "see https://github.com/octo/url-named/issues/4" });
      fx.nockReply(url, (t) => t.includes("I started a new thread for octo/url-named"));
      expect(await run(url, "octo/url-named")).toMatchObject({ outcome: "queued", repo: "octo/url-named", via: "text" });

      const nowhere = mention({ where: "CNODEFAULT", text: "add a changelog" });
      const ask = fx.nockReply(nowhere, (t) => /Which repository should I work in/.test(t));
      expect(await run(nowhere, null)).toMatchObject({ outcome: "repo_unknown" });
      expect(ask.isDone()).toBe(true);
      expect(await agentJob(nowhere)).toBeUndefined();

      const ghost = mention({ where: "CNODEFAULT", text: "fix repo:octo/ghost" });
      nock(API).get("/repos/octo/ghost/installation").reply(404, { message: "Not Found" });
      const notInstalled = fx.nockReply(ghost, (t) => /not installed on octo\/ghost/.test(t));
      expect(await run(ghost, null)).toMatchObject({ outcome: "not_installed", repo: "octo/ghost" });
      expect(notInstalled.isDone()).toBe(true);
    });

    it("another repository: a message naming it in the conversation starts a new thread, says so, and follow-ups reach only their repository's thread", async () => {
      const job = async (m: Mention, repo: string, reply?: RegExp) => {
        fx.nockFetch(m, { user: "UWRITER", text: m.text });
        fx.nockAck(m);
        const said = reply ? fx.nockReply(m, (t) => reply.test(t)) : null;
        await github(repo, "dana", "write");
        expect((await deliver(m)).status).toBe(200);
        expect((await intake(m)).returnvalue).toMatchObject({ outcome: "queued", repo });
        expect(said?.isDone() ?? true).toBe(true);
        return (await agentJob(m))!.data;
      };
      const first = mention({ where: "CSWITCH", text: "fix the build repo:octo/secret" });
      const a = await job(first, "octo/secret");
      const { threadKey } = fx.expected(first);
      expect(a.threadId).toBe(threadId({ kind: "source", key: threadKey, repo: "octo/secret" }));
      const other = await job(
        mention({ where: "CSWITCH", thread: first.id, text: "and the docs repo:octo/public" }),
        "octo/public",
        /This conversation was about octo\/secret; I started a new thread for octo\/public/,
      );
      expect(other.source?.threadKey).toBe(threadKey);
      expect(other.threadId).toBe(threadId({ kind: "source", key: threadKey, repo: "octo/public" }));
      expect(other.threadId).not.toBe(a.threadId);
      expect(other.source).not.toHaveProperty("context");
      // No repository named: the conversation's latest one; naming the first again goes back to its thread, without a notice.
      const follow = await job(mention({ where: "CSWITCH", thread: first.id, text: "also the readme" }), "octo/public");
      expect(follow.threadId).toBe(other.threadId);
      const back = await job(mention({ where: "CSWITCH", thread: first.id, text: "back to repo:octo/secret" }), "octo/secret");
      expect(back.threadId).toBe(a.threadId);
    });

    it("migration: a conversation from before threads were per repository keeps its thread for the repository it recorded", async () => {
      const first = mention({ where: "CLEGACY", text: "hello" });
      const { threadKey } = fx.expected(first);
      const legacy = threadId({ kind: "raw", key: threadKey });
      await testRedis().set(`${prefix}:thread:${legacy}:repo`, "octo/old");
      const run = async (m: Mention, repo: string) => {
        fx.nockFetch(m, { user: "UWRITER", text: m.text });
        fx.nockAck(m);
        await github(repo, "dana", "write");
        expect((await deliver(m)).status).toBe(200);
        expect((await intake(m)).returnvalue).toMatchObject({ outcome: "queued", repo });
        return (await agentJob(m))!.data.threadId;
      };
      expect(await run(mention({ where: "CLEGACY", thread: first.id, text: "carry on" }), "octo/old")).toBe(legacy);
      const other = mention({ where: "CLEGACY", thread: first.id, text: "now repo:octo/new" });
      fx.nockReply(other, (t) => t.includes("This conversation was about octo/old; I started a new thread for octo/new"));
      expect(await run(other, "octo/new")).toBe(threadId({ kind: "source", key: threadKey, repo: "octo/new" }));
      expect(await run(mention({ where: "CLEGACY", thread: first.id, text: "back in repo:octo/old" }), "octo/old")).toBe(legacy);
      expect(await testRedis().get(`${prefix}:thread:${legacy}:repo`)).toBe("octo/old");
    });

    it("resumed step: our reply already in the conversation since the run began is taken, not posted again; a person's same text and an earlier run's are not; a normal step lists nothing", async () => {
      const m = mention();
      const body = `Opened https://github.com/octo/hello/pull/7 and **tests pass** (${m.id}).`;
      const began = new Date(Date.now() - 60_000);
      const after = new Date(began.getTime() + 5_000);
      const before = new Date(began.getTime() - 3_600_000);
      const effects = new SideEffectLedger(testRedis(), prefix);
      const { threadKey } = fx.expected(m);
      // A fresh client per step, as each job builds one: nothing cached between them.
      const step = (runId: string, resumedSince?: string) => {
        const client = buildSourceRegistry(testConfig({ ...fx.env, QUEUE_PREFIX: prefix }), [], { redis: testRedis() })
          .get(fx.name)!
          .client(createLogger("silent"));
        const state = { replied: false };
        return postSourceReply({ effects, runId: `${prefix}-${runId}`, state, ...(resumedSince ? { resumedSince } : {}) }, { origin: { kind: fx.name, threadKey, ref: fx.ref(m) }, client }, body);
      };
      // Our reply made it before the cut-off execution's record did: read, and nothing is posted (a post has no mock).
      const found = fx.nockListing(m, [
        { own: true, markdown: body, at: before },
        { own: false, markdown: body, at: after },
        { own: true, markdown: body, at: after },
      ]);
      expect(await step("found", began.toISOString())).toEqual({ id: 0, replayed: false });
      expect(found.every((s) => s.isDone())).toBe(true);
      // Only a person's message with the same text and an earlier run's identical reply: posted, once.
      const notOurs = fx.nockListing(m, [
        { own: true, markdown: body, at: before },
        { own: false, markdown: body, at: after },
      ]);
      const posted = fx.nockReply(m, (t) => t.includes("tests pass"));
      expect(await step("not-ours", began.toISOString())).toEqual({ id: 0, replayed: false });
      expect([...notOurs, posted].every((s) => s.isDone())).toBe(true);
      // A normal step posts with no listing call (none is mocked), and its record answers a resume.
      const normal = fx.nockReply(m, (t) => t.includes("tests pass"));
      expect(await step("normal")).toEqual({ id: 0, replayed: false });
      expect(normal.isDone()).toBe(true);
      expect(await step("normal", began.toISOString())).toEqual({ id: 0, replayed: true });
    });

    it("reply formatting: the agent's Markdown arrives in the source's own format", async () => {
      const source = buildSourceRegistry(testConfig({ ...fx.env, QUEUE_PREFIX: prefix }), [], { redis: testRedis() }).get(fx.name)!;
      const client = source.client(createLogger("silent"));
      const m = mention();
      for (const [markdown, received] of fx.replyFormatting) {
        const scope = fx.nockReply(m, (t) => t === received);
        await client.reply(fx.ref(m), markdown);
        expect(scope.isDone()).toBe(true);
      }
    });
  });
}
