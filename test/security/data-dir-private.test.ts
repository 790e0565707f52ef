import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.js";

// Finding: CLI verbs on a fresh DATA_DIR (`open-swe settings`, `open-swe run`) left the embedded Redis's
// files and the mirrors world-readable; only `web`/`worker` made their directories private. Each run
// here gets umask 000, the worst an operator's shell can hand it.

const BIN = join(ROOT, "bin/open-swe.mjs");

function cli(args: string[], dataDir: string, cwd = mkdtempSync(join(tmpdir(), "osw-cwd-"))): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", 'umask 000; exec "$@"', "sh", process.execPath, BIN, ...args], {
      cwd,
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: tmpdir(), DATA_DIR: dataDir, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.once("exit", (code) => resolve({ code, output }));
  });
}

const mode = (p: string) => statSync(p).mode & 0o777;

/** Every path under `dir` that a user other than the owner could read, write or enter. */
function openToOthers(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isSocket()) continue;
    if (mode(p) & 0o077) out.push(`${p} ${mode(p).toString(8)}`);
    if (e.isDirectory()) out.push(...openToOthers(p));
  }
  return out;
}

describe("every entry point makes the data directory private", () => {
  it("`open-swe settings repos list` on a fresh DATA_DIR: the data, redis, mirror and sandbox roots are 0700, Redis's files owner-only", async () => {
    const data = join(mkdtempSync(join(tmpdir(), "osw-data-")), "fresh");
    const r = await cli(["settings", "repos", "list"], data);
    expect(r.code, r.output).toBe(0);
    for (const d of [data, join(data, "redis"), join(data, "mirrors"), join(data, "sandboxes")]) expect(mode(d), d).toBe(0o700);
    expect(existsSync(join(data, "redis", "appendonlydir"))).toBe(true);
    expect(openToOthers(join(data, "redis"))).toEqual([]);
  }, 60_000);

  it("an older install's open directories and Redis files are closed by the next command", async () => {
    const data = mkdtempSync(join(tmpdir(), "osw-data-"));
    expect((await cli(["settings", "repos", "list"], data)).code).toBe(0);
    execFileSync("chmod", ["-R", "a+rwX", data]);
    expect(openToOthers(data).length).toBeGreaterThan(0);
    expect((await cli(["runs", "ls"], data)).code).toBe(0);
    for (const d of [data, join(data, "redis"), join(data, "mirrors")]) expect(mode(d), d).toBe(0o700);
    expect(openToOthers(join(data, "redis"))).toEqual([]);
  }, 60_000);

  it("`open-swe run` on a fresh DATA_DIR: its mirror sits under a 0700 root even when the run cannot start", async () => {
    const repo = mkdtempSync(join(tmpdir(), "osw-repo-"));
    const git = (...a: string[]) => execFileSync("git", ["-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", ...a]);
    git("init", "-q", "-b", "main");
    writeFileSync(join(repo, "README.md"), "hi\n");
    git("add", ".");
    git("commit", "-qm", "init");
    const data = join(mkdtempSync(join(tmpdir(), "osw-data-")), "fresh");
    // No model key: the run stops after the mirror is made, before any agent work.
    const r = await cli(["run", "--repo", repo, "say hi"], data);
    expect(r.code, r.output).not.toBe(0);
    expect(readdirSync(join(data, "mirrors")).length, r.output).toBeGreaterThan(0);
    for (const d of [data, join(data, "mirrors"), join(data, "sandboxes")]) expect(mode(d), d).toBe(0o700);
  }, 60_000);
});
