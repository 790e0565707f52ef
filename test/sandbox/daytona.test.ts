import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterAll, expect } from "vitest";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { DaytonaSandboxProvider } from "../../src/sandbox/providers/daytona.js";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { describeSandboxConformance } from "./conformance.js";
import { DAYTONA_API, mockDaytonaHttp } from "./fakes/fake-daytona-http.js";
import { countContract } from "../contracts/nock-contract.js";

const maxOutputBytes = 64 * 1024;
const mocks: Array<ReturnType<typeof mockDaytonaHttp>> = [];

describeSandboxConformance("daytona provider (real SDK, nock-mocked HTTP over bubblewrap)", async () => {
  const root = await mkdtemp(join(tmpdir(), "osw-daytona-"));
  const local = new LocalSandboxProvider({ root, workdir: "/home/daytona/workspace", execTimeoutMs: 30_000, maxOutputBytes: 1 << 20 });
  mocks.push(mockDaytonaHttp(local));
  const config = { ...readSandboxConfig({ SANDBOX_TYPE: "daytona", DAYTONA_API_KEY: "dtn_test", DAYTONA_API_URL: DAYTONA_API }), maxOutputBytes };
  return {
    provider: new DaytonaSandboxProvider(config),
    maxOutputBytes,
    mergedStderr: true,
    missingId: "local-0000000000000000",
    teardown: async () => {
      nock.cleanAll();
      await rm(root, { recursive: true, force: true });
    },
  };
});

afterAll(() => {
  // Every request the real SDK made is an operation of Daytona's description (its generated clients).
  const seen = new Set(mocks.flatMap((m) => m.operations));
  for (const op of ["POST /sandbox", "GET /sandbox/{sandboxIdOrName}", "DELETE /sandbox/{sandboxIdOrName}", "POST /process/execute", "POST /files/bulk-upload", "POST /files/bulk-download"])
    expect(seen).toContain(op);
  for (const _ of mocks.flatMap((m) => m.operations)) countContract("daytona", "validated");
  for (const _ of mocks.flatMap((m) => m.offContract)) countContract("daytona", "noContract");
  expect(mocks.flatMap((m) => m.offContract)).toEqual([]);
});

const real = readSandboxConfig(process.env);
describeSandboxConformance(
  "daytona provider (real service)",
  async () => ({ provider: new DaytonaSandboxProvider({ ...real, maxOutputBytes }), maxOutputBytes, mergedStderr: true, missingId: "00000000-0000-0000-0000-000000000000" }),
  { ...(real.daytona.apiKey ? {} : { skip: "DAYTONA_API_KEY not set" }), timeoutMs: 180_000 },
);
