import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { JobSigner, SYSTEM_VIAS } from "../../src/queue/job-provenance.js";
import { ROOT } from "../helpers/paths.js";
import { principalOf } from "../../src/queue/principal-of.js";

const signer = JobSigner.fromEnv({ WEBHOOK_SECRET: "s3cret" });
const payload = { installationId: 5, owner: "octo", repo: "hello", threadId: "t", requester: { login: "alice", id: 1 }, text: "fix it", verdictAuthorized: false };
const signed = signer.sign("agent", payload, "github-webhook", { login: "alice", id: 1 });

describe("JobSigner", () => {
  it("a job it signed verifies, with its principal and via, and the payload without the provenance", () => {
    expect(signer.verify("agent", JSON.parse(JSON.stringify(signed)))).toEqual({ ok: true, payload, provenance: { via: "github-webhook", principal: { login: "alice", id: 1 } } });
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
    expect(signer.verify("agent", data)).toEqual({ ok: false, reason });
  });

  it("refuses a job signed for another queue, or with another key", () => {
    expect(signer.verify("review", signed)).toMatchObject({ ok: false });
    expect(JobSigner.fromEnv({ WEBHOOK_SECRET: "other" }).verify("agent", signed)).toMatchObject({ ok: false });
  });

  it("OPEN_SWE_SECRET_KEY wins over WEBHOOK_SECRET, and its previous key still verifies", () => {
    const old = "a".repeat(64);
    const byOld = JobSigner.fromEnv({ OPEN_SWE_SECRET_KEY: old, WEBHOOK_SECRET: "s3cret" }).sign("agent", payload, "slack", null);
    expect(signer.verify("agent", byOld)).toMatchObject({ ok: false });
    expect(JobSigner.fromEnv({ OPEN_SWE_SECRET_KEY: "b".repeat(64), OPEN_SWE_SECRET_KEY_PREVIOUS: old }).verify("agent", byOld)).toMatchObject({ ok: true });
  });

  it("has no key without a secret: it queues nothing unsigned (says what to set) and accepts no job", () => {
    const keyless = JobSigner.fromEnv({});
    expect(() => keyless.sign("cleanup", { kind: "sweep" }, "operator", null)).toThrow(/OPEN_SWE_SECRET_KEY or WEBHOOK_SECRET/);
    const signed = JobSigner.fromEnv({ WEBHOOK_SECRET: "s" }).sign("cleanup", { kind: "sweep" }, "operator", null);
    expect(keyless.verify("cleanup", signed)).toEqual({ ok: false, reason: "signature mismatch" });
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
