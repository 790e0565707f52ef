// Attack surface for the people who run it: a non-root worker (a laptop, the Docker image's USER)
// with the network on used to fail every command at once (`nsenter: reassociate to namespace
// 'ns/net' failed`). Every network mode runs here as root and as an unprivileged test uid
// (setpriv), through the provider and through `open-swe sandbox exec`, against a loopback server.
import { spawn } from "node:child_process";
import { chmod, chown, mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TEST_UID = 4242;
const repo = resolve(import.meta.dirname, "..", "..");
const tsx = createRequire(import.meta.url).resolve("tsx");

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[]): Promise<Ran> {
  return new Promise((done) => {
    // cwd "/": the test file's own working directory is private to root, and the test uid inherits it.
    const p = spawn(file, args, { cwd: "/", stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => p.kill("SIGKILL"), 90_000);
    p.on("error", (e) => {
      clearTimeout(timer);
      done({ code: null, stdout, stderr: `${stderr}cannot start ${file}: ${e.message}` });
    });
    p.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/**
 * Runs node with `args` as `uid` (or as ourselves). The checkout is bind-mounted at `view` in a private
 * mount namespace, so it is reachable for the test uid even when its parents (say /root) are not.
 */
function node(uid: number | "self", view: string, home: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const envArgs = ["env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin", `HOME=${home}`, "LOG_LEVEL=warn", ...Object.entries(env).map(([k, v]) => `${k}=${v}`)];
  if (uid === "self") return run(envArgs[0]!, [...envArgs.slice(1), process.execPath, ...args.map((a) => a.replaceAll(view, repo))]);
  const inner = ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--", ...envArgs, process.execPath, ...args];
  return run("unshare", ["--mount", "--propagation", "private", "--", "sh", "-c", 'mount --bind "$1" "$2" && shift 2 && exec "$@"', "sh", repo, view, ...inner]);
}

describe("sandboxes work for a non-root worker, in every network mode", () => {
  let dir: string;
  let view: string;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "osw-unpriv-"));
    view = join(dir, "checkout");
    await mkdir(view);
    for (const who of ["root", "user"]) await mkdir(join(dir, who), { mode: 0o700 });
    await chown(join(dir, "user"), TEST_UID, TEST_UID);
    await chmod(dir, 0o755);
    server = createServer((_req, res) => res.end("hi from the host\n"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const fixture = () => [`--import=${tsx.replace(repo, view)}`, join(view, "test", "security", "fixtures", "egress-modes.ts")];

  it.each([
    ["root", "self"],
    ["an unprivileged uid", TEST_UID],
  ] as const)(
    "as %s: network off, proxied egress and host egress each do what they say",
    async (_who, uid) => {
      const home = join(dir, uid === "self" ? "root" : "user");
      const r = await node(uid, view, home, [...fixture(), join(home, "sandboxes"), String(port)]);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout.trim().split("\n").pop()!) as Record<string, { exitCode: number; stdout: string; stderr: string }>;
      expect(out.off).toMatchObject({ exitCode: 0, stdout: "no-route\n" });
      expect(out.proxy?.stderr).not.toContain("nsenter");
      // Own namespace: no direct route to the host's loopback; through the proxy the allowed server answers.
      expect(out.proxy?.stdout).toMatch(/^no-route\nHTTP\/1\.1 200 OK[\s\S]*hi from the host\n$/);
      expect(out.host?.stdout).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*hi from the host\n$/);
    },
    90_000,
  );

  it.each([
    ["root", "self"],
    ["an unprivileged uid", TEST_UID],
  ] as const)(
    "as %s: `open-swe sandbox exec --network on` reaches the egress proxy",
    async (_who, uid) => {
      const home = join(dir, uid === "self" ? "root" : "user");
      const cmd = `exec 3<>/dev/tcp/127.0.0.1/\${HTTP_PROXY##*:} && printf "CONNECT 1.1.1.1:70000 HTTP/1.1\\r\\n\\r\\n" >&3 && timeout 5 cat <&3`;
      const r = await node(uid, view, home, [join(view, "bin", "open-swe.mjs"), "sandbox", "exec", "--network", "on", "--", "bash", "-c", cmd], { DATA_DIR: join(home, "data") });
      expect(r.stderr).not.toContain("nsenter");
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^HTTP\/1\.1 400 Bad Request[\s\S]*bad port in 1\.1\.1\.1:70000/);
    },
    90_000,
  );
});
