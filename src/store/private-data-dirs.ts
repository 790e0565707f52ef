import { chmod, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { AppConfig } from "../config/env.js";

/**
 * Every entry point (`web`, `worker`, `all`, and each CLI verb that touches data) calls this first: the
 * data directory, the embedded Redis's, the mirrors' and the sandboxes' roots are created 0700 (or made
 * 0700 when an older version left them open), and Redis files already there lose group/other access. So
 * the first command on a fresh `DATA_DIR` — `open-swe settings …` or `open-swe run` included — never
 * leaves Redis's data or a repository's objects readable by other users of the machine.
 */
export async function makeDataDirsPrivate(config: Pick<AppConfig, "dataDir" | "sandbox">): Promise<void> {
  const redisDir = join(config.dataDir, "redis");
  for (const dir of [config.dataDir, redisDir, config.sandbox.mirrorRoot, config.sandbox.root]) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
  }
  await closeTree(redisDir, 2);
}

/** Files and directories below `dir` (to `depth` levels, Redis's appendonlydir) lose group and other bits. */
async function closeTree(dir: string, depth: number): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      await chmod(path, 0o700);
      if (depth > 1) await closeTree(path, depth - 1);
    } else if (entry.isFile()) {
      await chmod(path, 0o600);
    }
  }
}
