import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { JobSigner, SYSTEM_VIAS } from "../../src/queue/job-provenance.js";
import { ROOT } from "../helpers/paths.js";
import { principalOf } from "../../src/queue/principal-of.js";

const signer = JobSigner.fromEnv({ WEBHOOK_SECRET: "s3cret" });
const payload = { installationId: 5, owner: "octo", repo: "hello", threadId: "t", requester: { login: "alice", id: 1 }, text: "fix it", verdictAuthorized: false };
const NOW = 1_800_000_000_000;
const JOB = "job-1";
const signed = signer.sign("agent", { jobId: JOB }, payload, "github-webhook", { login: "alice", id: 1 }, { iat: NOW });

describe("JobSigner", () => {
  it("a job it signed verifies, with its principal and via, and the payload without the provenance", () => {
    expect(signer.verify("agent", JOB, JSON.parse(JSON.stringify(signed)), NOW)).toEqual({ ok: true, payload, provenance: { via: "github-webhook", principal: { login: "alice", id: 1 } } });
  });

  it.each([
    ["unsigned", payload, "unsigned"],
    ["another repository", { ...signed, repo: "secret" }, "signature mismatch"],
    ["verdict authority granted", { ...signed, verdictAuthorized: true }, "signature mismatch"],
    ["another requester", { ...signed, requester: { login: "mallory", id: 9 } }, "signature mismatch"],
    ["another task", { ...signed, text: "delete everything" }, "signature mismatch"],
    ["another principal", { ...signed, provenance: { ...signed.provenance, principal: { login: "bob", id: 2 } } }, "signature mismatch"],
    ["another via", { ...signed, provenance: { ...signed.provenance, via: "operator" } }, "signature mismatch"],
    ["a via nobody produces", { ...signed, provenance: { ...signed.provenance, via: "bull-board" } }, "malformed provenance"],
    ["a garbage signature", { ...signed, provenance: { ...signed.provenance, sig: "zz" } }, "malformed provenance"],
    ["not an object", "agent", "not an object"],
  ])("refuses %s", (_name, data, reason) => {
    expect(signer.verify("agent", JOB, data, NOW)).toEqual({ ok: false, reason });
  });

  it("refuses a job signed for another queue, or with another key", () => {
    expect(signer.verify("review", JOB, signed, NOW)).toMatchObject({ ok: false });
    expect(JobSigner.fromEnv({ WEBHOOK_SECRET: "other" }).verify("agent", JOB, signed, NOW)).toMatchObject({ ok: false });
  });

  it("OPEN_SWE_SECRET_KEY wins over WEBHOOK_SECRET, and its previous key still verifies", () => {
    const old = "a".repeat(64);
    const byOld = JobSigner.fromEnv({ OPEN_SWE_SECRET_KEY: old, WEBHOOK_SECRET: "s3cret" }).sign("agent", { jobId: JOB }, payload, "slack", null, { iat: NOW });
    expect(signer.verify("agent", JOB, byOld, NOW)).toMatchObject({ ok: false });
    expect(JobSigner.fromEnv({ OPEN_SWE_SECRET_KEY: "b".repeat(64), OPEN_SWE_SECRET_KEY_PREVIOUS: old }).verify("agent", JOB, byOld, NOW)).toMatchObject({ ok: true });
  });

  it("has no key without a secret: it queues nothing unsigned (says what to set) and accepts no job", () => {
    const keyless = JobSigner.fromEnv({});
    expect(() => keyless.sign("cleanup", { jobId: JOB }, { kind: "sweep" }, "operator", null, { iat: NOW })).toThrow(/OPEN_SWE_SECRET_KEY or WEBHOOK_SECRET/);
    const signed = JobSigner.fromEnv({ WEBHOOK_SECRET: "s" }).sign("cleanup", { jobId: JOB }, { kind: "sweep" }, "operator", null, { iat: NOW });
    expect(keyless.verify("cleanup", JOB, signed, NOW)).toEqual({ ok: false, reason: "signature mismatch" });
  });
});

describe("JobSigner: a signature is bound to its job id and its time", () => {
  const HOUR = 3600_000;
  const aged = JobSigner.fromEnv({ WEBHOOK_SECRET: "s3cret", JOB_MAX_AGE_HOURS: 2 });
  const job = aged.sign("agent", { jobId: JOB }, payload, "github-webhook", { login: "alice", id: 1 }, { iat: NOW });
  const delayed = aged.sign("ci-event", { jobId: "approval-timeout" }, { kind: "x" }, "system:approval-timeout", null, { iat: NOW, delayMs: 48 * HOUR });
  const sched = aged.sign("cleanup", { scheduler: "sandbox-sweep" }, { kind: "sweep" }, "system:sandbox-sweep", null, { iat: NOW });
  it.each([
    ["its own id, just issued", "agent", JOB, job, NOW, true],
    ["its own id, at its maximum age", "agent", JOB, job, NOW + 2 * HOUR, true],
    ["its own id, past its maximum age", "agent", JOB, job, NOW + 2 * HOUR + 1, false],
    ["a copy under another id", "agent", "job-2", job, NOW, false],
    ["a delayed job, when due a day later", "ci-event", "approval-timeout", delayed, NOW + 49 * HOUR, true],
    ["a delayed job, past its age after its due time", "ci-event", "approval-timeout", delayed, NOW + 51 * HOUR, false],
    ["a scheduler's iteration, a month later", "cleanup", `repeat:sandbox-sweep:${NOW + 720 * HOUR}`, sched, NOW + 720 * HOUR, true],
    ["a scheduler's template under another scheduler's id", "cleanup", "repeat:other:1", sched, NOW, false],
    ["a scheduler's template under a plain id", "cleanup", "sandbox-sweep", sched, NOW, false],
  ] as const)("%s → %s", (_name, queue, id, data, now, ok) => {
    expect(aged.verify(queue, id, data, now).ok).toBe(ok);
  });

  it("says why a too-old job is refused, and signs no scheduler template for a person", () => {
    expect(aged.verify("agent", JOB, job, NOW + 3 * HOUR)).toEqual({ ok: false, expired: true, reason: expect.stringMatching(/^issued 2027-01-15T08:00:00.000Z, expired/) });
    expect(() => aged.sign("agent", { scheduler: "s" }, payload, "github-webhook", { login: "alice", id: 1 }, { iat: NOW })).toThrow(/system job/);
    const v1 = { ...payload, provenance: { v: 1, via: "github-webhook", principal: null, sig: "0".repeat(64) } };
    expect(aged.verify("agent", JOB, v1, NOW)).toEqual({ ok: false, reason: expect.stringContaining("(v1)") });
  });
});

describe("principalOf", () => {
  it.each([
    ["agent", { requester: { login: "alice", id: 1 } }, { login: "alice", id: 1 }],
    ["review", {}, null],
    ["command", { requester: { login: "bob", id: 2 } }, { login: "bob", id: 2 }],
    ["ci-event", { reviewer: "carol" }, { login: "carol" }],
    ["ci-event", {}, null],
    ["source-event", { user: { id: "U1" } }, null],
    ["cleanup", { kind: "sweep" }, null],
  ] as const)("%s %j → %j", (queue, data, expected) => {
    expect(principalOf(queue, data)).toEqual(expected);
  });
});

describe("the README's security table", () => {
  it("names every system principal a job can carry, and no other", () => {
    const row = readFileSync(join(ROOT, "README.md"), "utf8")
      .split("\n")
      .find((l) => l.startsWith("| nobody | the app's own timers"));
    expect(row).toBeDefined();
    expect([...row!.matchAll(/`(system:[a-z-]+)`/g)].map((m) => m[1]).sort()).toEqual([...SYSTEM_VIAS].sort());
  });
});
