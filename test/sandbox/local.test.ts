import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
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
