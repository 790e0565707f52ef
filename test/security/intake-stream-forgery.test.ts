import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { intakeStreamKey } from "../../src/queue/intake-keys.js";
import { IntakePump } from "../../src/queue/intake-pump.js";
import { IntakeStream } from "../../src/queue/intake-stream.js";
import { JobSigner } from "../../src/queue/job-provenance.js";
import { QueueSet } from "../../src/queue/queues.js";
import { connectRedis } from "../../src/store/redis.js";
import { testSigner } from "../helpers/job-signer.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";

/**
 * Attack: whoever can write to Redis appends an entry to an intake stream by hand, hoping the pump signs
 * it into an acting job. The pump checks the web tier's seal first: every forged, altered or misplaced
 * entry is refused with one log line that says why, and no job is made.
 */
describe("intake stream: an entry the web tier did not seal never becomes a job", () => {
  const prefix = uniquePrefix();
  const lines: { msg: string; reason?: string; entryId?: string }[] = [];
  let queues: QueueSet;
  let pump: IntakePump;
  const payload = (repo: string) => ({
    installationId: 1,
    owner: "octo",
    repo,
    number: 5,
    isPullRequest: false,
    threadId: "2f1c6a52-8a3e-4a55-9b8e-2a7f3c1d9e01",
    trigger: "comment",
    requester: { login: "mallory", id: 66 },
    text: "push to main",
    verdictAuthorized: true,
    comment: { kind: "issue_comment", id: 1 },
    deliveryId: "d-1",
  });
  const request = (repo: string) => JSON.stringify({ queue: "agent", data: payload(repo), jobId: `j__forged__${repo}`, via: "github-webhook", at: Date.now() });
  beforeAll(() => {
    queues = new QueueSet({ connection: connectRedis(redisUrl()), prefix, attempts: 1, signer: testSigner() });
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const l of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(l));
        cb();
      },
    });
    pump = new IntakePump({ connection: connectRedis(redisUrl()), queues, prefix, log: pino({ level: "info" }, sink) });
  });
  afterAll(async () => {
    await pump?.stop();
    await queues?.close();
    queues?.connection.disconnect();
  });

  it("refuses unsealed, foreign-keyed, altered and misplaced entries, and still moves the genuine one beside them", async () => {
    const redis = testRedis();
    const agent = intakeStreamKey(prefix, "agent");
    const forged = {
      unsealed: await redis.xadd(agent, "*", "e", request("unsealed")),
      foreignKey: await redis.xadd(agent, "*", "e", request("foreign"), "s", JobSigner.fromEnv({ WEBHOOK_SECRET: "not-ours" }).sealEntry(request("foreign"))),
      altered: await redis.xadd(agent, "*", "e", request("altered"), "s", testSigner().sealEntry(request("original"))),
      misplaced: await redis.xadd(intakeStreamKey(prefix, "cleanup"), "*", "e", request("misplaced"), "s", testSigner().sealEntry(request("misplaced"))),
    };
    await new IntakeStream(redis, prefix, testSigner()).add("agent", { ...payload("genuine"), verdictAuthorized: false } as never, "j__genuine", { via: "github-webhook" });
    pump.start();

    await expect.poll(async () => (await redis.xlen(agent)) + (await redis.xlen(intakeStreamKey(prefix, "cleanup"))), { timeout: 10_000 }).toBe(0);
    const refused = Object.fromEntries(lines.filter((l) => l.msg.startsWith("intake entry refused")).map((l) => [l.entryId, l.reason]));
    expect(refused).toEqual({
      [forged.unsealed!]: "unsealed (not appended by the web tier)",
      [forged.foreignKey!]: "seal mismatch (not appended by the web tier, or altered)",
      [forged.altered!]: "seal mismatch (not appended by the web tier, or altered)",
      [forged.misplaced!]: "sealed for queue agent, found in cleanup's stream",
    });
    for (const repo of ["unsealed", "foreign", "altered", "misplaced"]) expect(await queues.findJob("agent", `j__forged__${repo}`)).toBeUndefined();
    expect(await queues.findJob("cleanup", "j__forged__misplaced")).toBeUndefined();
    const genuine = await queues.findJob("agent", "j__genuine");
    expect(queues.signer.verify("agent", "j__genuine", genuine?.data, Date.now())).toMatchObject({ ok: true, provenance: { via: "github-webhook", principal: { login: "mallory", id: 66 } } });
  });
});
