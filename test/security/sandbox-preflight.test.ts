import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { checkSandboxIsolation } from "../../src/sandbox/preflight.js";
import { testPrivateKey, WEBHOOK_SECRET } from "../helpers/github-app.js";
import { checkoutView } from "../helpers/checkout-view.js";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin/open-swe.mjs");
// The image's entry point is `node bin/open-swe.mjs <role>` (Dockerfile ENTRYPOINT): start it the same way.
const entry = readFileSync(join(ROOT, "Dockerfile"), "utf8");

interface Exit {
  code: number | null;
  output: string;
}

function startWorker(env: Record<string, string>, wrap: (argv: string[]) => string[] = (a) => a, bin = BIN): Promise<Exit> {
  const dataDir = mkdtempSync(join(tmpdir(), "osw-preflight-data-"));
  const argv = wrap([process.execPath, bin, "worker"]);
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: bin === BIN ? ROOT : "/",
    env: {
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: tmpdir(),
      APP_ID: "1",
      PRIVATE_KEY: testPrivateKey(),
      WEBHOOK_SECRET,
      GITHUB_API_URL: "http://127.0.0.1:9/api/v3",
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  return new Promise((r) =>
    child.once("close", (code) => {
      clearTimeout(timer);
      r({ code, output });
    }),
  );
}

describe("a worker that cannot isolate sandboxes refuses to start", () => {
  it("the Dockerfile starts the same entry point this test starts", () => {
    expect(entry).toMatch(/ENTRYPOINT \["node", "bin\/open-swe\.mjs"\]/);
  });

  it("without bubblewrap on PATH: exit 2 and one line saying what to install", async () => {
    const nodeOnly = mkdtempSync(join(tmpdir(), "osw-no-bwrap-"));
    symlinkSync(process.execPath, join(nodeOnly, "node"));
    const r = await startWorker({ PATH: nodeOnly });
    expect(r.code).toBe(2);
    expect(r.output.trim().split("\n")).toEqual([
      "open-swe: cannot isolate sandboxes: bubblewrap (bwrap) is not on PATH: install it (apt-get install bubblewrap), or set SANDBOX_TYPE to e2b, modal or daytona",
    ]);
  });

  it("without user namespaces (a container with them off): exit 2 and one line naming the settings", async () => {
    // A user namespace of the test's own whose nested-namespace limit is 0 (what a container with
    // user namespaces off looks like); the worker runs in it as an unprivileged uid, as the image does.
    const script = ["echo 0 > /proc/sys/user/max_user_namespaces", `exec setpriv --reuid 4242 --regid 4242 --clear-groups "$@"`].join(" && ");
    const dataDir = mkdtempSync(join(tmpdir(), "osw-preflight-userns-"));
    await chmod(dataDir, 0o777);
    // The checkout is bound where uid 4242 can reach it, whatever its parents' modes (a clone under /root).
    const { view, wrap } = checkoutView();
    const r = await startWorker(
      { DATA_DIR: join(dataDir, "data") },
      (argv) => wrap(["bash", join(view, "test/security/fixtures/in-userns.sh"), "bash", "-c", script, "in-userns", ...argv]),
      join(view, "bin/open-swe.mjs"),
    );
    expect(r.code).toBe(2);
    const lines = r.output.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^open-swe: cannot isolate sandboxes: user namespaces are not available to uid 4242 \(.*\): allow unprivileged user namespaces on the host .* in Docker run the container with --security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined/,
    );
  });

  it("with everything in place the check passes and says how sandboxes are isolated", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "osw-preflight-ok-"));
    const r = await checkSandboxIsolation(readSandboxConfig({ SANDBOX_ROOT: join(dataDir, "sandboxes"), SANDBOX_MIRROR_ROOT: join(dataDir, "mirrors") }));
    expect(r).toMatchObject({ ok: true });
    const uid = process.getuid!() === 0 ? 65533 : process.getuid!();
    expect(r.ok && r.detail).toContain(`sandbox processes run as host uid ${uid}`);
  });

  it("vendor sandboxes need nothing local", async () => {
    expect(await checkSandboxIsolation(readSandboxConfig({ SANDBOX_TYPE: "e2b", PATH: "/nonexistent" }))).toMatchObject({ ok: true });
  });
});
