import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { testPrivateKey, WEBHOOK_SECRET } from "../helpers/github-app.js";
import { ROOT } from "../helpers/paths.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";

// Slow (real worker processes, ~20 s): each one's clock shifted by libfaketime (Debian's faketime), Redis's not.
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

// Debian's libfaketime (multi-threaded variant: node runs threads), preloaded into the node process itself
// so that signals reach it (the `faketime` wrapper does not forward them).
const LIBFAKETIME = readdirSync("/usr/lib")
  .map((d) => join("/usr/lib", d, "faketime/libfaketimeMT.so.1"))
  .find((p) => existsSync(p));

function worker(offset: string) {
  if (!LIBFAKETIME) throw new Error("libfaketime is missing: apt-get install faketime (scripts/ensure-test-deps.sh installs it)");
  const data = mkdtempSync(join(tmpdir(), "open-swe-clock-"));
  const child = spawn(process.execPath, [join(ROOT, "bin/open-swe.mjs"), "worker"], {
    cwd: data,
    env: {
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME: offset,
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: tmpdir(),
      APP_ID: "1",
      PRIVATE_KEY: testPrivateKey(),
      WEBHOOK_SECRET,
      QUEUE_REDIS_URL: redisUrl(),
      QUEUE_PREFIX: uniquePrefix(),
      DATA_DIR: data,
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return { child, exited, output: () => out };
}

describe("one clock: a worker whose clock is off Redis's", () => {
  it("by 2 hours says so in one line and refuses to start", async () => {
    const p = worker("+2h");
    expect(await p.exited).toBe(2);
    const lines = p.output().trim().split("\n");
    expect(lines.at(-1)).toMatch(/^open-swe: this host's clock is 2 h 0 min ahead of Redis's \(more than 30 s\): .*\(NTP\)$/);
    expect(p.output()).not.toContain("worker role started");
    expect(p.output()).not.toMatch(/\n\s+at /);
  }, 60_000);

  it("by 10 seconds starts (and stops on SIGTERM)", async () => {
    const p = worker("-10s");
    for (let i = 0; !p.output().includes("worker role started"); i++) {
      if (p.child.exitCode !== null || i > 1200) throw new Error(`the worker did not start: ${p.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    p.child.kill("SIGTERM");
    expect(await p.exited).toBe(0);
  }, 60_000);
});
