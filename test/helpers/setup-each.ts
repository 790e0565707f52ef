import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import nock from "nock";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { flushTally, installVendorContracts, setContractFile, takeViolations } from "../contracts/nock-contract.js";
import { unmountOrphanedSandboxMounts } from "../../src/sandbox/orphaned-mounts.js";
import { dropOperatorEnv } from "./operator-env.js";

// Never the operator's data: each test file runs in a fresh working directory (so `.env` and the default
// DATA_DIR `.data` are not the checkout's) without the variables that point at an installation.
const repoRoot = process.cwd();
process.chdir(mkdtempSync(join(tmpdir(), "open-swe-test-cwd-")));
dropOperatorEnv(process.env);

// Every mock of a vendor with a published contract (GitHub, Linear, Slack, Jira, Confluence) is held to
// it, and counted per vendor (test/contracts/README.md).
installVendorContracts(nock);

beforeAll(async () => {
  // A shared fork (vitest.config.ts) keeps one module graph across files: the app's metrics registry (one per
  // process, src/observability/metrics.ts) starts each file at zero, as in a process of its own.
  if (process.env.OPEN_SWE_TEST_SHARED === "1") (await import("../../src/observability/metrics.js")).registry.resetMetrics();
  setContractFile(relative(repoRoot, expect.getState().testPath ?? ""));
  // `npm run test:live` is the one run that reaches vendors (scripts/test-live.mjs sets it).
  if (process.env.OPEN_SWE_TEST_LIVE === "1") return;
  nock.disableNetConnect();
  nock.enableNetConnect((host) => host.startsWith("127.0.0.1") || host.startsWith("localhost"));
});

// A test that leaves an HTTP mock unused fails: the mock described a call the code no longer makes.
// A mocked exchange the vendor would never have (GitHub: route, parameters, body, status, types; Linear: a
// query, variables or answer off its schema) fails it too.
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  const off = takeViolations();
  if (off.length > 0) throw new Error(`mocked vendor exchanges off the vendor's contract:\n  ${[...new Set(off)].join("\n  ")}`);
  if (pending.length > 0) throw new Error(`unused HTTP mocks: ${pending.join(", ")}`);
});

// Files that remove a sandbox root without destroying its sandboxes leave their bind mounts behind;
// every later bwrap exec on the machine would copy and tear them down (a mount namespace per exec).
afterAll(async () => {
  flushTally();
  await unmountOrphanedSandboxMounts();
});
