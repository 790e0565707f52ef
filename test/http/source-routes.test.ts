import { createHmac, timingSafeEqual } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import type { Source, SourceEvent } from "../../src/sources/source.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const SECRET = "route-test-secret";
const sign = (body: string, secret = SECRET) => createHmac("sha256", secret).update(body).digest("hex");

/** The smallest source: an HMAC header, a JSON body saying what to do. Exercises the router only. */
function fakeSource(name: "linear" | "jira", configured: boolean, path: string): Source {
  return {
    name,
    configured,
    secretEnv: "FAKE_SECRET",
    routes: [
      {
        method: "POST",
        path,
        signatureHeaders: ["x-sig", "x-sig-alt"],
        async verify(req) {
          const given = Buffer.from(String(req.headers["x-sig"] ?? ""), "utf8");
          const want = Buffer.from(sign(req.rawBody.toString("utf8")), "utf8");
          if (String(req.headers["x-throw"]) === "1") throw new Error("verifier exploded");
          return given.length === want.length && timingSafeEqual(given, want) ? { ok: true } : { ok: false, reason: "bad signature" };
        },
        parse(req): SourceEvent {
          const body = JSON.parse(req.rawBody.toString("utf8")) as { do: string; id?: string };
          if (body.do === "respond") return { kind: "respond", status: 200, body: { challenge: "abc" } };
          if (body.do === "ignore") return { kind: "ignore", reason: "test" };
          if (body.do === "throw") throw new Error("parser exploded");
          return { kind: "mention", dedupeKey: body.id ?? "x", threadKey: `${name}:t1`, text: "hi", user: { id: "U1" }, ref: { id: body.id }, repoDefaultKey: `${name}:team` };
        },
      },
    ],
    client: () => {
      throw new Error("not used on the web path");
    },
  };
}

describe("source routes: verify before parsing, 401 without detail, one job per event", () => {
  let proc: RunningProcess;
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${proc.port}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-sig": sign(body), ...headers }, body });
  const jobs = () => proc.queues.queues["source-event"].getJobs(["waiting", "delayed", "active", "completed", "failed"]);

  beforeAll(async () => {
    proc = await startTestProcess(
      "web",
      { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix(), SOURCE_MAX_BODY_BYTES: "2048" },
      { sources: [fakeSource("linear", true, "/webhooks/fake"), fakeSource("jira", false, "/webhooks/unset")] },
    );
  });
  afterAll(async () => proc?.stop());

  it("a signed mention is queued once, with what the route parsed", async () => {
    const res = await post("/webhooks/fake", JSON.stringify({ do: "mention", id: "e1" }));
    expect(res.status).toBe(200);
    const queued = (await jobs()).filter((j) => j.data.dedupeKey === "e1");
    expect(queued).toHaveLength(1);
    expect(queued[0]!.data).toEqual({
      source: "linear",
      threadKey: "linear:t1",
      text: "hi",
      user: { id: "U1" },
      ref: { id: "e1" },
      repoDefaultKey: "linear:team",
      dedupeKey: "e1",
      provenance: expect.objectContaining({ via: "linear", principal: null }),
    });
  });

  it("a tampered body, a missing signature and a throwing verifier get a bare 401 and queue nothing", async () => {
    const body = JSON.stringify({ do: "mention", id: "e2" });
    const tampered = await post("/webhooks/fake", body.replace("e2", "e3"), { "x-sig": sign(body) });
    const missing = await fetch(`http://127.0.0.1:${proc.port}/webhooks/fake`, { method: "POST", body });
    const thrown = await post("/webhooks/fake", body, { "x-throw": "1" });
    for (const res of [tampered, missing, thrown]) {
      expect(res.status).toBe(401);
      expect(await res.text()).toBe("");
    }
    expect((await jobs()).filter((j) => ["e2", "e3"].includes(j.data.dedupeKey))).toHaveLength(0);
  });

  it("a source whose secret is unset refuses even a correctly signed request", async () => {
    const res = await post("/webhooks/unset", JSON.stringify({ do: "mention", id: "u1" }));
    expect(res.status).toBe(401);
    expect((await jobs()).filter((j) => j.data.dedupeKey === "u1")).toHaveLength(0);
  });

  it("three concurrent deliveries of one event, and a later redelivery, make exactly one job", async () => {
    const body = JSON.stringify({ do: "mention", id: "e4" });
    const results = await Promise.all([post("/webhooks/fake", body), post("/webhooks/fake", body), post("/webhooks/fake", body)]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await post("/webhooks/fake", body)).status).toBe(200);
    const one = (await jobs()).filter((j) => j.data.dedupeKey === "e4");
    expect(one).toHaveLength(1);
    // The claim outlives the job: a redelivery after BullMQ removed it (removeOnComplete) is still a duplicate.
    await one[0]!.remove();
    expect((await post("/webhooks/fake", body)).status).toBe(200);
    expect((await jobs()).filter((j) => j.data.dedupeKey === "e4")).toHaveLength(0);
  });

  it("respond answers on the spot, ignore is a 200 with nothing queued, a parser failure a short 400", async () => {
    const before = (await jobs()).length;
    const respond = await post("/webhooks/fake", JSON.stringify({ do: "respond" }));
    expect(respond.status).toBe(200);
    expect(await respond.json()).toEqual({ challenge: "abc" });
    expect((await post("/webhooks/fake", JSON.stringify({ do: "ignore" }))).status).toBe(200);
    const broken = await post("/webhooks/fake", JSON.stringify({ do: "throw" }));
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({ error: "the payload could not be read" });
    expect((await jobs()).length).toBe(before);
  });

  it("a body past SOURCE_MAX_BODY_BYTES is a 413 before it is verified; other methods and paths fall through", async () => {
    const big = JSON.stringify({ do: "mention", id: "big", pad: "x".repeat(4096) });
    expect((await post("/webhooks/fake", big)).status).toBe(413);
    expect((await fetch(`http://127.0.0.1:${proc.port}/webhooks/fake`)).status).toBe(404);
    expect((await post("/webhooks/fake/other", "{}")).status).toBe(404);
    // The path is matched as Probot matches its own (trailing slash, dot segments).
    expect((await post("/webhooks/./fake/", JSON.stringify({ do: "respond" }))).status).toBe(200);
  });
});
