// Attack: code in a sandbox plants a set-uid (and set-gid) copy of bash in its workspace, hoping
// someone on the host runs it. Run by the worker as root (as CI runs), in overlay mode and in the
// no-overlay fallback, and by a non-root worker (the Docker image's and a laptop's case).
import { execFileSync, spawnSync } from "node:child_process";
import { chmod, lstat, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mountOptions } from "../../src/sandbox/overlay.js";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";
import { hostGit } from "../../src/sandbox/workspace/host-git.js";
import { ensureMirror } from "../../src/sandbox/workspace/mirror.js";
import { prepareWorkspace } from "../../src/sandbox/workspace/prepare-workspace.js";
import { checkoutView } from "../helpers/checkout-view.js";

const NOBODY = ["--reuid", "65534", "--regid", "65534", "--clear-groups"];
const PLANT = "cp /bin/bash /workspace/x && chmod 4755 /workspace/x && cp /bin/bash /workspace/y && chmod 6755 /workspace/y && ls -ln /workspace/x /workspace/y";
const DEVICE = "mknod /workspace/null c 1 3 || mknod /workspace/sda b 8 0 || true";
// The sandbox user can still do its work in what the worker built for it.
const WORK = "git checkout -q -b open-swe/work && echo a > a.txt && git add a.txt && git -c user.name=a -c user.email=a@b commit -qm a && echo committed && echo kept > ~/.keep && cat ~/.keep";

/** Every way `nobody` might run the planted file: directly, through a shell; effective ids printed. */
function runAs(creds: string[], path: string): string {
  const direct = spawnSync("setpriv", [...creds, path, "-p", "-c", "id -u; id -g"], { encoding: "utf8" });
  const shell = spawnSync("setpriv", [...creds, "/bin/sh", "-c", `'${path}' -p -c 'id -u; id -g'`], { encoding: "utf8" });
  return `${direct.stdout}${direct.stderr}\n${shell.stdout}${shell.stderr}`;
}

async function assertNoPrivilege(path: string): Promise<void> {
  const st = await stat(path);
  expect(st.uid, `${path} is owned by host root`).not.toBe(0);
  expect(st.gid, `${path} belongs to host root's group`).not.toBe(0);
  const out = runAs(NOBODY, path);
  expect(out, `running ${path} as nobody`).not.toMatch(/^0$/m);
}

async function assertNoDevices(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const st = await lstat(join(dir, name));
    expect(st.isCharacterDevice() || st.isBlockDevice(), `${name} is a device`).toBe(false);
  }
}

async function mode(path: string): Promise<number> {
  return (await stat(path)).mode & 0o7777;
}

describe("no privilege leaves a sandbox (worker running as root)", () => {
  let tmp: string;
  let mirrorRoot: string;
  let mirror: string;

  beforeAll(async () => {
    expect(process.getuid!(), "these attacks run as root, as CI does").toBe(0);
    tmp = await mkdtemp(join(tmpdir(), "osw-priv-"));
    mirrorRoot = join(tmp, "mirrors");
    const seed = join(tmp, "seed");
    await hostGit(["init", "-q", "-b", "main", seed]);
    await hostGit(["-C", seed, "commit", "-q", "--allow-empty", "-m", "initial"], { env: { GIT_AUTHOR_NAME: "D", GIT_AUTHOR_EMAIL: "d@e", GIT_COMMITTER_NAME: "D", GIT_COMMITTER_EMAIL: "d@e" } });
    mirror = await ensureMirror({ mirrorRoot, repo: "acme/app", remoteUrl: seed });
  });
  afterAll(async () => {
    for (const overlay of [true, false]) {
      const p = new LocalSandboxProvider({ root: join(tmp, overlay ? "sb-overlay" : "sb-copy"), execTimeoutMs: 10_000, maxOutputBytes: 1 << 20 });
      for (const s of await p.list()) await p.destroy(s.id);
    }
    await rm(tmp, { recursive: true, force: true });
  });

  async function plantIn(overlay: boolean): Promise<{ sb: LocalSandbox; root: string; mode: string }> {
    const root = join(tmp, overlay ? "sb-overlay" : "sb-copy");
    const provider = new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes: 1 << 20, overlay });
    const sb = await provider.create({ network: false });
    const ws = await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "main", branch: "open-swe/attack", publicUrl: "https://github.com/acme/app.git" });
    const r = await sb.exec(PLANT);
    expect(r.exitCode, r.stderr).toBe(0);
    // Inside, the sandbox owns its copies and the set-uid bit is really set: the attack did happen.
    expect(r.stdout).toMatch(/^-rwsr-xr-x 1 1000 1000 .* \/workspace\/x$/m);
    expect(r.stdout).toMatch(/^-rwsr-sr-x 1 1000 1000 .* \/workspace\/y$/m);
    await sb.exec(DEVICE);
    expect((await sb.exec(WORK)).stdout).toBe("committed\nkept\n");
    return { sb, root, mode: ws.mode };
  }

  it("overlay mode: the planted binaries give nobody no root, through the workspace or the upper layer", async () => {
    const { sb, root, mode: wsMode } = await plantIn(true);
    expect(wsMode).toBe("overlay");
    const upper = join(root, sb.id, "upper");
    for (const dir of [sb.hostWorkspace, upper]) {
      await assertNoPrivilege(join(dir, "x"));
      await assertNoPrivilege(join(dir, "y"));
      await assertNoDevices(dir);
    }
    expect(await mountOptions(sb.hostWorkspace)).toMatch(/^(?=.*nosuid)(?=.*nodev)/);
    expect(await mountOptions(dirname(sb.hostWorkspace))).toMatch(/^(?=.*nosuid)(?=.*nodev)/);
    // The sandbox's directory and everything of the worker's on the way to it: private.
    expect(await mode(root)).toBe(0o700);
    expect(await mode(join(root, sb.id))).toBe(0o710);
    expect(await mode(upper)).toBe(0o700);
  });

  it("fallback mode (no overlay): the planted binaries give nobody no root", async () => {
    const { sb, root, mode: wsMode } = await plantIn(false);
    expect(wsMode).toBe("clone");
    const onDisk = join(root, sb.id, "workspace");
    for (const dir of [sb.hostWorkspace, onDisk]) {
      await assertNoPrivilege(join(dir, "x"));
      await assertNoPrivilege(join(dir, "y"));
      await assertNoDevices(dir);
    }
    expect(await mountOptions(dirname(sb.hostWorkspace))).toMatch(/^(?=.*nosuid)(?=.*nodev)/);
    expect(await mode(root)).toBe(0o700);
    expect(await mode(onDisk)).toBe(0o700);
  });

  it("a non-root worker (fallback mode): the binaries are the worker user's, under a directory only it can enter", async () => {
    const data = await mkdtemp(join(tmpdir(), "osw-priv-user-"));
    await chmod(data, 0o755);
    const dataDir = join(data, "data");
    execFileSync("install", ["-d", "-o", "4242", "-g", "4242", "-m", "0700", dataDir]);
    try {
      const { view, wrap } = checkoutView();
      const argv = wrap([
        "setpriv",
        "--reuid",
        "4242",
        "--regid",
        "4242",
        "--clear-groups",
        process.execPath,
        "--import",
        "tsx",
        join(view, "test/security/fixtures/sandbox-worker.mts"),
        dataDir,
        "on",
        PLANT,
        DEVICE,
        WORK,
        "id -un; cat ~/.keep",
      ]);
      const out = execFileSync(argv[0]!, argv.slice(1), { cwd: "/", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dataDir }, encoding: "utf8" });
      const run = JSON.parse(out.trim().split("\n").at(-1)!) as { mode: string; hostWorkspace: string; results: Array<{ exitCode: number; stdout: string }> };
      expect(run.mode).toBe("clone");
      expect(run.results[0]?.stdout).toMatch(/^-rwsr-xr-x 1 1000 1000 .* \/workspace\/x$/m);
      expect(run.results[2]?.stdout).toBe("committed\nkept\n");
      expect(run.results[3]?.stdout).toBe("sandbox\nkept\n");
      for (const name of ["x", "y"]) {
        const path = join(run.hostWorkspace, name);
        await assertNoPrivilege(path);
        expect((await stat(path)).uid).toBe(4242);
      }
      await assertNoDevices(run.hostWorkspace);
      expect(await mode(dataDir)).toBe(0o700);
      expect(await mode(join(dataDir, "sandboxes"))).toBe(0o700);
    } finally {
      await rm(data, { recursive: true, force: true });
    }
  });
});
