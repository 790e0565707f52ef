import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect } from "vitest";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { ModalSandboxProvider } from "../../src/sandbox/providers/modal.js";
import { describeSandboxConformance } from "./conformance.js";
import { startModalServer, type ModalServer } from "./fakes/modal-server.js";
import { countContract } from "../contracts/nock-contract.js";

const maxOutputBytes = 64 * 1024;
const served: ModalServer[] = [];

describeSandboxConformance("modal provider (real SDK over gRPC against Modal's services on loopback)", async () => {
  const root = await mkdtemp(join(tmpdir(), "osw-modal-"));
  const local = new LocalSandboxProvider({ root, execTimeoutMs: 30_000, maxOutputBytes: 1 << 20 });
  const modal = await startModalServer(local);
  served.push(modal);
  // The SDK takes its server only from MODAL_SERVER_URL (or ~/.modal.toml), read when a client is made.
  process.env.MODAL_SERVER_URL = modal.serverUrl;
  const config = { ...readSandboxConfig({ SANDBOX_TYPE: "modal", MODAL_TOKEN_ID: modal.tokenId, MODAL_TOKEN_SECRET: modal.tokenSecret }), maxOutputBytes };
  return {
    provider: new ModalSandboxProvider(config),
    maxOutputBytes,
    missingId: "sb-00000000000000000000",
    teardown: async () => {
      delete process.env.MODAL_SERVER_URL;
      await modal.close();
      await rm(root, { recursive: true, force: true });
    },
  };
});

afterAll(() => {
  const seen = new Set(served.flatMap((s) => s.calls));
  for (const c of [
    "ModalClient/AppGetOrCreate",
    "ModalClient/ImageGetOrCreate",
    "ModalClient/SandboxCreateV2",
    "ModalClient/SandboxListV2",
    "ModalClient/SandboxTerminateV2",
    "TaskCommandRouter/TaskExecStart",
    "TaskCommandRouter/TaskExecStdioRead",
    "TaskCommandRouter/TaskExecWait",
  ])
    expect(seen).toContain(c);
  for (const _ of served.flatMap((s) => s.calls)) countContract("modal", "validated");
  for (const _ of served.flatMap((s) => s.unserved)) countContract("modal", "noContract");
  expect(served.flatMap((s) => s.unserved)).toEqual([]);
});

const real = readSandboxConfig(process.env);
describeSandboxConformance("modal provider (real service)", async () => ({ provider: new ModalSandboxProvider({ ...real, maxOutputBytes }), maxOutputBytes, missingId: "sb-00000000000000000000" }), {
  ...(real.modal.tokenId && real.modal.tokenSecret ? {} : { skip: "MODAL_TOKEN_ID/MODAL_TOKEN_SECRET not set" }),
  timeoutMs: 180_000,
});
