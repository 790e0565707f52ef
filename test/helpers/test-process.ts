import { createLogger } from "../../src/logger.js";
import { startProcess, type RunningProcess, type Role, type StartOptions } from "../../src/main.js";
import { testConfig } from "./github-app.js";

/** A real app process role on a free loopback port, GitHub credentials from the test key, silent logs (unless `log`). */
export function startTestProcess(role: Role, env: Record<string, string>, extra: Pick<StartOptions, "sources" | "queues"> & { log?: StartOptions["log"] } = {}): Promise<RunningProcess> {
  return startProcess({
    ...extra,
    role,
    config: testConfig(env),
    log: extra.log ?? createLogger("silent"),
    port: 0,
    host: "127.0.0.1",
    octokitDefaults: { retry: { enabled: false }, throttle: { enabled: false } },
  });
}
