import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { isSandboxError } from "../../src/sandbox/types.js";
import { describeSandboxConformance } from "./conformance.js";

describeSandboxConformance("local (bubblewrap) provider", async () => {
  const root = await mkdtemp(join(tmpdir(), "osw-local-"));
  const maxOutputBytes = 64 * 1024;
  return {
    provider: new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes }),
    maxOutputBytes,
    missingId: "local-0000000000000000",
    teardown: () => rm(root, { recursive: true, force: true }),
  };
});

describe("local provider specifics", () => {
  it("an aborted signal kills the command tree at once", async () => {
    const root = await mkdtemp(join(tmpdir(), "osw-local-"));
    try {
      const provider = new LocalSandboxProvider({ root, execTimeoutMs: 30_000, maxOutputBytes: 1024 });
      const sb = await provider.create({ network: false });
      const ac = new AbortController();
      const started = Date.now();
      setTimeout(() => ac.abort(), 200);
      const r = await sb.exec("sleep 30 & sleep 30", { signal: ac.signal });
      expect(r).toMatchObject({ timedOut: true, exitCode: 124 });
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("rejects ids that are not local ids and env names that are not names", async () => {
    const root = await mkdtemp(join(tmpdir(), "osw-local-"));
    try {
      const provider = new LocalSandboxProvider({ root, execTimeoutMs: 30_000, maxOutputBytes: 1024 });
      await expect(provider.connect("../../etc")).rejects.toSatisfy((e: unknown) => isSandboxError(e, "not_found"));
      const sb = await provider.create({ network: false });
      await expect(sb.exec("true", { env: { "A=B": "x" } })).rejects.toSatisfy((e: unknown) => isSandboxError(e, "invalid"));
      await expect(provider.create({ hostWorkspace: join(root, "missing") })).rejects.toSatisfy((e: unknown) => isSandboxError(e, "invalid"));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
