import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hostAliveKey } from "../../src/queue/host-routes.js";
import { ROOT } from "../helpers/paths.js";
import { twoHosts, type TwoHosts } from "../helpers/two-hosts.js";

const opened: TwoHosts[] = [];
afterAll(async () => {
  for (const h of opened) await h.close();
});

/** The real CLI's worker role; resolves with its exit code and everything it printed. */
function cliWorker(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [join(ROOT, "bin/open-swe.mjs"), "worker"], {
    cwd: mkdtempSync(join(tmpdir(), "open-swe-cwd-")),
    env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: tmpdir(), ...env, LOG_LEVEL: "error" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve) => child.once("exit", (code) => (clearTimeout(timer), resolve({ code, output }))));
}

describe("e2e: two worker instances on one DATA_DIR", () => {
  it("the second refuses to start in one line while the first lives; once the first is dead its claim lapses and another may take the disk over", async () => {
    const hosts = twoHosts([{ tool_calls: [{ name: "confirming_completion", args: { summary: "-" } }] }], { HOST_ALIVE_MS: "1500" });
    opened.push(hosts);
    const first = await hosts.a.start();
    const refused = await cliWorker(hosts.a.env);
    expect(refused.code).toBe(2);
    expect(refused.output.trim().split("\n")).toHaveLength(1);
    expect(refused.output).toMatch(/^open-swe: the sandbox directory of host h-[a-z0-9]+ is in use by another live worker instance \(.+\/\d+\): give each worker its own DATA_DIR/);

    first.kill("SIGKILL");
    for (let i = 0; (await hosts.redis.exists(hostAliveKey(hosts.prefix, hosts.a.id()))) === 1; i++) {
      if (i > 400) throw new Error("the dead instance's liveness never lapsed");
      await new Promise((r) => setTimeout(r, 25));
    }
    // A dead instance of this machine is taken over at once (one of another machine lapses with HOST_ALIVE_MS).
    await hosts.a.start();
  }, 120_000);
});
