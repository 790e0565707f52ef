import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSandboxConfig } from "../../src/sandbox/config.js";
import { E2bSandboxProvider } from "../../src/sandbox/providers/e2b.js";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { isSandboxError } from "../../src/sandbox/types.js";
import { describeSandboxConformance } from "./conformance.js";
import { fakeE2bClient } from "./fakes/fake-e2b.js";
import { namedError } from "./fakes/named-error.js";

const maxOutputBytes = 64 * 1024;

async function fakeBacked() {
  const root = await mkdtemp(join(tmpdir(), "osw-e2b-"));
  const local = new LocalSandboxProvider({ root, workdir: "/home/user/workspace", execTimeoutMs: 10_000, maxOutputBytes: 1 << 20 });
  const client = fakeE2bClient(local);
  const config = { ...readSandboxConfig({ SANDBOX_TYPE: "e2b", E2B_API_KEY: "e2b_test" }), maxOutputBytes };
  return { provider: new E2bSandboxProvider(config, client), client, root };
}

describeSandboxConformance("e2b provider (fake SDK client over bubblewrap)", async () => {
  const { provider, root } = await fakeBacked();
  return { provider, maxOutputBytes, missingId: "local-0000000000000000", teardown: () => rm(root, { recursive: true, force: true }) };
});

describe("e2b provider error mapping", () => {
  it("maps SDK errors onto our codes and treats a non-zero exit as a result", async () => {
    const { provider, client, root } = await fakeBacked();
    try {
      client.create = async () => {
        throw namedError("AuthenticationError", "invalid API key");
      };
      await expect(provider.create()).rejects.toSatisfy((e: unknown) => isSandboxError(e, "auth"));
      client.create = async () => {
        throw namedError("RateLimitError", "too many sandboxes", { statusCode: 429 });
      };
      await expect(provider.create()).rejects.toSatisfy((e: unknown) => isSandboxError(e, "quota"));
      client.connect = async () => {
        throw Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } });
      };
      await expect(provider.connect("x")).rejects.toSatisfy((e: unknown) => isSandboxError(e, "unreachable"));
      expect(client.requests.length).toBe(0);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

const real = readSandboxConfig(process.env);
describeSandboxConformance(
  "e2b provider (real service)",
  async () => ({ provider: new E2bSandboxProvider({ ...real, maxOutputBytes }), maxOutputBytes, missingId: "i0000000000000000000" }),
  { ...(real.e2b.apiKey ? {} : { skip: "E2B_API_KEY not set" }), timeoutMs: 120_000 },
);
