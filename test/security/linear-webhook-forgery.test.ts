import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { sourceEventJobId } from "../../src/http/source-routes.js";
import { INTAKE_REPLIES } from "../../src/sources/intake-replies.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { waitForJob, jobsEverywhere } from "../helpers/jobs.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import { ALICE, APP_USER, commentEvent, ISSUE, SECRET, signLinear } from "../sources/linear/linear-fixtures.js";
import { mockLinear, type GraphqlCall } from "../sources/linear/linear-nock.js";

// Attacks on the Linear webhook, over real HTTP with real signatures and a real worker: forged,
// tampered, replayed, stale and concurrent deliveries, and a payload that lies about its author.
describe("POST /webhooks/linear: forged requests start nothing", () => {
  let proc: RunningProcess;
  let prefix: string;
  const post = (raw: string, headers: Record<string, string>) =>
    fetch(`http://127.0.0.1:${proc.port}/webhooks/linear`, { method: "POST", headers: { "content-type": "application/json; charset=utf-8", ...headers }, body: raw });
  const signed = (body: unknown, delivery: string) => {
    const raw = JSON.stringify(body);
    return post(raw, { "linear-signature": signLinear(raw), "linear-delivery": delivery });
  };
  /** One comment per case: the dedupe key is the signed body's webhook, comment and action. */
  const event = (label: string, data: Record<string, unknown> = {}, envelope: Record<string, unknown> = {}) => commentEvent({ id: `comment-${label}`, ...data }, envelope);
  const keyOf = (label: string) => `linear:webhook-0001:Comment:comment-${label}:create`;
  const jobs = async (label: string) => (await proc.queues.queues["source-event"].getJobs(["waiting", "delayed", "active", "completed", "failed"])).filter((j) => j.data.dedupeKey === keyOf(label));

  beforeAll(async () => {
    prefix = uniquePrefix();
    proc = await startTestProcess("all", {
      QUEUE_REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      JOB_ATTEMPTS: "1",
      LINEAR_WEBHOOK_SECRET: SECRET,
      LINEAR_API_KEY: "lin_api_test",
      LINEAR_APP_USER_ID: APP_USER,
    });
  });
  afterAll(async () => proc?.stop());

  it("a signed mention is queued with the thread, the reply reference and the team's default key", async () => {
    expect((await signed(event("d-valid"), "d-valid")).status).toBe(200);
    const [job, ...more] = await jobs("d-valid");
    expect(more).toHaveLength(0);
    expect(job!.data).toMatchObject({ source: "linear", threadKey: "linear:issue-0001", repoDefaultKey: "linear:team-0001", ref: { trigger: "comment", commentId: "comment-d-valid" } });
  });

  it("three concurrent deliveries of one event → exactly one job", async () => {
    const body = event("d-concurrent");
    const answers = await Promise.all([1, 2, 3].map(() => signed(body, "d-concurrent")));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await jobs("d-concurrent")).toHaveLength(1);
  });

  it("the same signed body under two different Linear-Delivery headers (the header is not signed) → one job", async () => {
    const body = event("d-two-headers");
    expect((await signed(body, "d-first")).status).toBe(200);
    expect((await signed(body, "d-second-made-up")).status).toBe(200);
    const raw = JSON.stringify(body);
    expect((await post(raw, { "linear-signature": signLinear(raw) })).status).toBe(200);
    expect(await jobs("d-two-headers")).toHaveLength(1);
  });

  it.each([
    ["tampered", (raw: string) => ({ raw: raw.replace("flaky", "FLAKY"), sig: signLinear(raw) })],
    ["signed with another secret", (raw: string) => ({ raw, sig: signLinear(raw, "not-the-secret") })],
    ["unsigned", (raw: string) => ({ raw, sig: "" })],
  ])("%s → a bare 401, nothing queued", async (name, make) => {
    const { raw, sig } = make(JSON.stringify(event(`d-${name}`)));
    const res = await post(raw, { ...(sig ? { "linear-signature": sig } : {}), "linear-delivery": `d-${name}` });
    expect(res.status).toBe(401);
    expect(await res.text()).toBe("");
    expect(await jobs(`d-${name}`)).toHaveLength(0);
  });

  it("the same JSON re-serialised (what a proxy that parses and re-encodes sends) → 401: the signature covers the bytes", async () => {
    const raw = JSON.stringify(event("d-reserialised"));
    const res = await post(JSON.stringify(JSON.parse(raw), null, 2), { "linear-signature": signLinear(raw), "linear-delivery": "d-reserialised" });
    expect(res.status).toBe(401);
    expect(await jobs("d-reserialised")).toHaveLength(0);
  });

  it("a second linear-signature header beside the valid one → 401, whichever comes first", async () => {
    for (const [d, validFirst] of [
      ["d-dup-1", true],
      ["d-dup-2", false],
    ] as const) {
      const raw = JSON.stringify(event(d));
      const pair = validFirst ? [signLinear(raw), "0".repeat(64)] : ["0".repeat(64), signLinear(raw)];
      const headers = new Headers({ "content-type": "application/json", "linear-delivery": d });
      for (const sig of pair) headers.append("linear-signature", sig);
      const res = await fetch(`http://127.0.0.1:${proc.port}/webhooks/linear`, { method: "POST", headers, body: raw });
      expect(res.status).toBe(401);
      expect(await jobs(d)).toHaveLength(0);
    }
  });

  it("a stale or future delivery → 401, nothing queued", async () => {
    for (const [d, skew] of [
      ["d-stale", -61_000],
      ["d-future", 61_000],
    ] as const) {
      const res = await signed(event(d, {}, { webhookTimestamp: Date.now() + skew }), d);
      expect(res.status).toBe(401);
      expect(await jobs(d)).toHaveLength(0);
    }
  });

  it("our own comment → 200, nothing queued", async () => {
    const res = await signed(event("d-own", { userId: APP_USER, user: { id: APP_USER, name: "Open SWE" } }), "d-own");
    expect(res.status).toBe(200);
    expect(await jobs("d-own")).toHaveLength(0);
  });

  it("a payload naming a linked user is judged by who Linear says wrote it: the impostor gets the unlinked reply", async () => {
    await new SettingsStore(testRedis(), prefix).setIdentity(`linear:${ALICE.id}`, "dana");
    const calls: GraphqlCall[] = [];
    // The payload says Alice (linked to a writer); Linear, asked with our key, says Mallory wrote it.
    mockLinear(
      "OpenSweLinearComment",
      {
        data: {
          viewer: { id: APP_USER },
          comment: {
            id: "comment-impostor",
            body: "@open-swe push to main repo:octo/hello",
            createdAt: "2026-12-01T10:00:00.000Z",
            user: { id: "user-mallory", name: "Mallory", email: "alice@example.com" },
            botActor: null,
            issue: null,
          },
        },
      },
      { calls, when: (v) => v["id"] === "comment-impostor" },
    );
    // Mallory's Linear email is nobody's on GitHub (no match): still unlinked.
    mockLinear("OpenSweLinearUserEmail", { data: { user: { id: "user-mallory", email: "mallory@example.com", active: true, app: false } } });
    nock("https://api.github.com").get("/repos/octo/hello/installation").reply(200, { id: 9301 });
    nock("https://api.github.com")
      .post("/app/installations/9301/access_tokens")
      .reply(201, { token: "ghs_test", expires_at: new Date(Date.now() + 3600_000).toISOString() });
    nock("https://api.github.com").get("/search/users").query(true).reply(200, { items: [] });
    mockLinear(
      "OpenSweCommentCreate",
      { data: { commentCreate: { success: true, comment: { id: "c-r", url: "https://linear.app/acme/issue/ENG-3#comment-c-r" } } } },
      { calls, when: (v) => (v["input"] as { parentId?: string }).parentId === "comment-impostor" },
    );
    expect((await signed(commentEvent({ id: "comment-impostor", body: "@open-swe push to main repo:octo/hello" }), "d-impostor")).status).toBe(200);
    const done = await waitForJob(proc.queues.queues["source-event"], sourceEventJobId("linear", "linear:webhook-0001:Comment:comment-impostor:create"), 30_000);
    expect(done.returnvalue).toEqual({ outcome: "unmapped", sourceUser: "user-mallory" });
    expect(calls[1]!.variables).toEqual({ input: { issueId: ISSUE, body: INTAKE_REPLIES.unmapped("linear", "user-mallory"), parentId: "comment-impostor" } });
    expect(await jobsEverywhere(proc.queues.queues.agent, ["waiting", "delayed", "active", "completed", "failed"])).toHaveLength(0);
  });
});
