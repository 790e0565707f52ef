import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readSandboxConfig } from "../../src/sandbox/config.js";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { ModalSandboxProvider } from "../../src/sandbox/providers/modal.js";
import { describeSandboxConformance } from "./conformance.js";
import { fakeModalApi } from "./fakes/fake-modal.js";

const maxOutputBytes = 64 * 1024;

describeSandboxConformance("modal provider (fake client seam over bubblewrap)", async () => {
  const root = await mkdtemp(join(tmpdir(), "osw-modal-"));
  const local = new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes: 1 << 20 });
  const config = { ...readSandboxConfig({ SANDBOX_TYPE: "modal" }), maxOutputBytes };
  return {
    provider: new ModalSandboxProvider(config, fakeModalApi(local)),
    maxOutputBytes,
    missingId: "local-0000000000000000",
    teardown: () => rm(root, { recursive: true, force: true }),
  };
});

const real = readSandboxConfig(process.env);
describeSandboxConformance(
  "modal provider (real service)",
  async () => ({ provider: new ModalSandboxProvider({ ...real, maxOutputBytes }), maxOutputBytes, missingId: "sb-00000000000000000000" }),
  { ...(real.modal.tokenId && real.modal.tokenSecret ? {} : { skip: "MODAL_TOKEN_ID/MODAL_TOKEN_SECRET not set" }), timeoutMs: 180_000 },
);
