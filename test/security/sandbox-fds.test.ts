// Attack: whoever started the worker (a supervisor, a shell, a test runner) left descriptors open
// without close-on-exec; code in a sandbox looks for them in /proc/self/fd and writes through them.
import { spawn } from "node:child_process";
import { openSync, closeSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPrivateKey, WEBHOOK_SECRET } from "../helpers/github-app.js";

const ROOT = resolve(import.meta.dirname, "../..");
const LIST = "ls -l /proc/self/fd | tail -n +2";
const WRITE = "for fd in 3 4 5 6 7 8 9; do (echo pwned >&$fd) 2>/dev/null && echo wrote-$fd; done; bash -c 'echo pwned >&12 && echo wrote-12' 2>/dev/null; true";

interface WorkerRun {
  mode: string;
  hostWorkspace: string;
  results: Array<{ exitCode: number; stdout: string; stderr: string }>;
}

/**
 * Starts the worker stand-in with a writable file at fd 5 and a socket at fd 7, and (network off)
 * the file again at fd 12 — none close-on-exec.
 */
function runWorker(dataDir: string, secret: string, commands: string[], network: "on" | "off"): Promise<WorkerRun> {
  const file5 = openSync(secret, "r+");
  const file12 = openSync(secret, "r+");
  const stdio: Array<"ignore" | "pipe" | number> = ["ignore", "pipe", "pipe", "ignore", "ignore", file5, "ignore", "pipe"];
  if (network === "off") stdio.push("ignore", "ignore", "ignore", "ignore", file12);
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "test/security/fixtures/sandbox-worker.mts"), dataDir, "off", ...commands], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dataDir, OSW_NETWORK: network },
    stdio,
  });
  closeSync(file5);
  closeSync(file12);
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) =>
    child.once("close", (code) => {
      if (code !== 0) return reject(new Error(`worker stand-in exited ${code}: ${err}`));
      resolve(JSON.parse(out.trim().split("\n").at(-1)!) as WorkerRun);
    }),
  );
}

describe("nothing the worker holds reaches a sandbox", () => {
  let tmp: string;
  let secret: string;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "osw-fds-"));
    secret = join(tmp, "worker-secret.txt");
    await writeFile(secret, "");
  });
  afterAll(() => rm(tmp, { recursive: true, force: true }));

  for (const network of ["off", "on"] as const) {
    it(`network ${network}: a sandbox sees only stdin, stdout and stderr, and cannot write to the worker's descriptors`, async () => {
      const run = await runWorker(join(tmp, `data-${network}`), secret, [LIST, WRITE], network);
      const [list, write] = run.results;
      // Each line: "… <fd> -> <target>"; ls's own directory descriptor is the only allowed extra.
      const open = (list?.stdout.trim().split("\n") ?? []).map((l) => /(\d+) -> (.*)$/.exec(l)!).filter((m) => !/^\/proc\/\d+\/fd$/.test(m[2]!));
      expect(open.map((m) => m[1]).sort()).toEqual(["0", "1", "2"]);
      expect(write?.stdout).toBe("");
      expect(await readFile(secret, "utf8")).toBe("");
    });
  }

  it("a starting worker makes its data directory, Redis files, mirrors and sandboxes private (0700)", async () => {
    const dataDir = join(tmp, "data-start");
    await mkdir(join(dataDir, "mirrors"), { recursive: true, mode: 0o755 });
    await chmod(dataDir, 0o755);
    const child = spawn(process.execPath, [join(ROOT, "bin/open-swe.mjs"), "worker"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: tmp,
        APP_ID: "1",
        PRIVATE_KEY: testPrivateKey(),
        WEBHOOK_SECRET,
        GITHUB_API_URL: "http://127.0.0.1:9/api/v3",
        DATA_DIR: dataDir,
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.once("close", r));
    const until = Date.now() + 30_000;
    while (!/sandbox isolation checked/.test(out) && child.exitCode === null && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGTERM");
    await exited;
    expect(out).toMatch(/sandbox isolation checked/);
    for (const dir of [dataDir, join(dataDir, "redis"), join(dataDir, "mirrors"), join(dataDir, "sandboxes")]) {
      expect((await stat(dir)).mode & 0o777, dir).toBe(0o700);
    }
  });
});
