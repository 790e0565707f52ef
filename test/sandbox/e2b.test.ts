import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { E2bSandboxProvider } from "../../src/sandbox/providers/e2b.js";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { isSandboxError } from "../../src/sandbox/types.js";
import { describeSandboxConformance } from "./conformance.js";
import { startE2bServer, type E2bServer } from "./fakes/e2b-server.js";
import { fakeE2bClient } from "./fakes/fake-e2b.js";
import { namedError } from "./fakes/named-error.js";
import { countContract } from "../contracts/nock-contract.js";

const maxOutputBytes = 64 * 1024;

async function fakeBacked() {
  const root = await mkdtemp(join(tmpdir(), "osw-e2b-"));
  const local = new LocalSandboxProvider({ root, workdir: "/home/user/workspace", execTimeoutMs: 10_000, maxOutputBytes: 1 << 20 });
  const client = fakeE2bClient(local);
  const config = { ...readSandboxConfig({ SANDBOX_TYPE: "e2b", E2B_API_KEY: "e2b_test" }), maxOutputBytes };
  return { provider: new E2bSandboxProvider(config, client), client, root };
}

const served: E2bServer[] = [];
describeSandboxConformance("e2b provider (real SDK against E2B's API and envd served on loopback)", async () => {
  const root = await mkdtemp(join(tmpdir(), "osw-e2b-sdk-"));
  const local = new LocalSandboxProvider({ root, workdir: "/home/user/workspace", execTimeoutMs: 30_000, maxOutputBytes: 1 << 20 });
  const e2b = await startE2bServer(local);
  served.push(e2b);
  const config = { ...readSandboxConfig({ SANDBOX_TYPE: "e2b", E2B_API_KEY: e2b.apiKey, E2B_API_URL: e2b.apiUrl, E2B_SANDBOX_URL: e2b.sandboxUrl }), maxOutputBytes };
  return {
    provider: new E2bSandboxProvider(config),
    maxOutputBytes,
    missingId: "local-0000000000000000",
    teardown: async () => {
      await e2b.close();
      await rm(root, { recursive: true, force: true });
    },
  };
});

afterAll(() => {
  // The SDK really went through both planes, and asked nothing E2B's description (or envd's) lacks.
  const seen = served.flatMap((s) => s.exchanges);
  for (const x of [
    "POST /v2/sandboxes 201",
    "POST /v2/sandboxes/{sandboxID}/connect 200",
    "POST /v2/sandboxes/{sandboxID}/connect 404",
    "DELETE /sandboxes/{sandboxID} 204",
    "DELETE /sandboxes/{sandboxID} 404",
    "GET /v2/sandboxes 200",
    "envd /process.Process/Start 200",
    "envd POST /files 200",
    "envd GET /files 200",
    "envd GET /files 404",
    "envd /health 204",
  ])
    expect(seen).toContain(x);
  for (const _ of seen) countContract("e2b", "validated");
  for (const _ of served.flatMap((s) => s.offContract)) countContract("e2b", "noContract");
  expect(served.flatMap((s) => s.offContract)).toEqual([]);
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
describeSandboxConformance("e2b provider (real service)", async () => ({ provider: new E2bSandboxProvider({ ...real, maxOutputBytes }), maxOutputBytes, missingId: "i0000000000000000000" }), {
  ...(real.e2b.apiKey ? {} : { skip: "E2B_API_KEY not set" }),
  timeoutMs: 120_000,
});
