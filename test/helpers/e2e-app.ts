import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningProcess, StartOptions } from "../../src/main.js";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { createSandboxProvider } from "../../src/sandbox/registry.js";
import { redisUrl, uniquePrefix } from "./redis.js";
import { startTestProcess } from "./test-process.js";

export interface E2eApp {
  proc: RunningProcess;
  prefix: string;
  dataDir: string;
  /** The replay script the run's model plays; write it before each run. */
  replay: string;
  stop(): Promise<void>;
}

/**
 * The whole app (web + workers) on the test Redis, with a replayed model, local sandboxes and a bare
 * git remote standing in for GitHub's git. `stop` also removes its sandboxes (overlay mounts first).
 */
export async function startE2eApp(remoteTemplate: string, label: string, env: Record<string, string> = {}, extra: { log?: StartOptions["log"] } = {}): Promise<E2eApp> {
  const prefix = uniquePrefix();
  const dataDir = mkdtempSync(join(tmpdir(), `open-swe-${label}-`));
  const replay = join(dataDir, "replay.json");
  // Start-up refuses a replay model whose file is missing; each test writes its own script before a run.
  writeFileSync(replay, JSON.stringify([{ text: "no script written for this run yet" }]));
  const proc = await startTestProcess(
    "all",
    {
      QUEUE_REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      DATA_DIR: dataDir,
      JOB_ATTEMPTS: "1",
      OPEN_SWE_MODEL: `replay:${replay}`,
      GIT_REMOTE_TEMPLATE: remoteTemplate,
      SANDBOX_TYPE: "local",
      ...env,
    },
    extra,
  );
  return {
    proc,
    prefix,
    dataDir,
    replay,
    async stop() {
      await proc.stop();
      const provider = createSandboxProvider(readSandboxConfig({ SANDBOX_ROOT: join(dataDir, "sandboxes") }));
      for (const sb of await provider.list()) await provider.destroy(sb.id);
    },
  };
}
