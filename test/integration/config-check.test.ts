import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.js";

/** `open-swe config check …` for real, in a fresh working directory (its .env: `dotEnv`), with only PATH, HOME and `env`. */
function check(args: string[], env: Record<string, string> = {}, dotEnv?: string): Promise<{ status: number | null; stdout: string; stderr: string; cwd: string }> {
  const cwd = mkdtempSync(join(tmpdir(), "config-check-"));
  if (dotEnv !== undefined) writeFileSync(join(cwd, ".env"), dotEnv);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, "bin/open-swe.mjs"), "config", "check", ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("close", (status) => resolve({ status, stdout, stderr, cwd }));
  });
}

describe("open-swe config check (spawned)", () => {
  it("exit 1 naming each bad variable (from .env too), 0 with credentials masked, 1 for a bad repository file, 2 for a usage error; nothing started", async () => {
    const dir = mkdtempSync(join(tmpdir(), "repo-file-"));
    writeFileSync(join(dir, "bad.yml"), "review:\n  atuo: true\n");
    writeFileSync(join(dir, "good.yml"), "review:\n  auto: false\n");
    const [badEnv, goodEnv, badFile, goodFile, missing, usage] = await Promise.all([
      check([], { PORT: "http" }, "METRICS_TOKEN=hunter2\n"),
      check([], { QUEUE_REDIS_URL: "redis://user:pa55word@redis.internal:6379", ANTHROPIC_API_KEY: "sk-ant-0123456789" }),
      check(["--repo-file", join(dir, "bad.yml")], { PORT: "http" }),
      check(["--repo-file", join(dir, "good.yml")]),
      check(["--repo-file", join(dir, "nope.yml")]),
      check(["--repo-fil", "x"]),
    ]);
    expect([badEnv.status, badEnv.stderr]).toEqual([1, ""]);
    expect(badEnv.stdout.split("\n")).toEqual([
      'invalid PORT: Invalid input: expected number, received NaN (got "http")',
      "invalid METRICS_TOKEN: at least 16 characters (a value of 7 characters, not shown)",
      "the environment is invalid: 2 problems",
      "",
    ]);
    expect([goodEnv.status, goodEnv.stderr]).toEqual([0, ""]);
    expect(goodEnv.stdout).toContain("ANTHROPIC_API_KEY=*** (17 characters, not shown)\n");
    expect(goodEnv.stdout).toContain("QUEUE_REDIS_URL=redis://***@redis.internal:6379\n");
    expect(goodEnv.stdout).not.toMatch(/pa55word|sk-ant/);
    expect(goodEnv.stdout).toMatch(/the environment is valid/);
    // --repo-file checks the file only (the bad PORT beside it is not its business).
    expect([badFile.status, badFile.stdout]).toEqual([1, `${join(dir, "bad.yml")}: review.atuo: unknown key (see schemas/open-swe.schema.json)\n${join(dir, "bad.yml")} is invalid: 1 problem\n`]);
    expect([goodFile.status, goodFile.stdout]).toEqual([0, `${join(dir, "good.yml")} is valid\n`]);
    expect([missing.status, missing.stderr]).toEqual([1, `open-swe: cannot read ${join(dir, "nope.yml")}: ENOENT\n`]);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/^open-swe: unknown option --repo-fil for `open-swe config check`/);
    // No data directory made, no Redis started.
    for (const r of [badEnv, goodEnv, goodFile]) expect(readdirSync(r.cwd).filter((f) => f !== ".env")).toEqual([]);
  }, 120_000);
});
