import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterAll, afterEach, beforeAll } from "vitest";
import { unmountOrphanedSandboxMounts } from "../../src/sandbox/orphaned-mounts.js";
import { dropOperatorEnv } from "./operator-env.js";

// Never the operator's data: each test file runs in a fresh working directory (so `.env` and the default
// DATA_DIR `.data` are not the checkout's) without the variables that point at an installation.
process.chdir(mkdtempSync(join(tmpdir(), "open-swe-test-cwd-")));
dropOperatorEnv(process.env);

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect((host) => host.startsWith("127.0.0.1") || host.startsWith("localhost"));
});

// A test that leaves an HTTP mock unused fails: the mock described a call the code no longer makes.
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  if (pending.length > 0) throw new Error(`unused HTTP mocks: ${pending.join(", ")}`);
});

// Files that remove a sandbox root without destroying its sandboxes leave their bind mounts behind;
// every later bwrap exec on the machine would copy and tear them down (a mount namespace per exec).
afterAll(async () => {
  await unmountOrphanedSandboxMounts();
});
