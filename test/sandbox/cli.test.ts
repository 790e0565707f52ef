import { existsSync } from "node:fs";
import { chown, mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSandboxCli } from "../../src/sandbox/cli.js";
import { readSandboxConfig, type SandboxConfig } from "../../src/config/sandbox-config.js";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) } }, out: () => out.join(""), err: () => err.join("") };
}

describe("runSandboxCli", () => {
  let root: string;
  let config: SandboxConfig;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-cli-"));
    config = readSandboxConfig({ SANDBOX_ROOT: join(root, "sandboxes") });
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it("exec prints stdout and stderr, passes the exit code through and cleans up", async () => {
    const c = capture();
    const code = await runSandboxCli(["exec", "--network", "off", "--", "echo out; echo err >&2; exit 7"], config, c.io);
    expect(code).toBe(7);
    expect(c.out()).toBe("out\n");
    expect(c.err()).toBe("err\n");
    expect(await readdir(join(root, "sandboxes"))).toEqual([]);
  });

  it("exec quotes an argv and applies the same isolation as a run (no network when off)", async () => {
    const c = capture();
    expect(await runSandboxCli(["exec", "--", "printf", "%s|", "a b", "it's"], config, c.io)).toBe(0);
    expect(c.out()).toBe("a b|it's|");
    const n = capture();
    expect(await runSandboxCli(["exec", "--network=off", "--", "bash -c 'exec 3<>/dev/tcp/127.0.0.1/9' && echo connected"], config, n.io)).not.toBe(0);
    expect(n.out()).toBe("");
  });

  it("exec --workspace binds an existing directory, runs as its owner (never root) and leaves it in place", async () => {
    const dir = await mkdtemp(join(root, "ws-"));
    const asRoot = process.getuid!() === 0;
    if (asRoot) await chown(dir, 4242, 4242);
    const c = capture();
    expect(await runSandboxCli(["exec", "--workspace", dir, "--", "pwd && echo made > made.txt"], config, c.io)).toBe(0);
    expect(c.out()).toBe("/workspace\n");
    expect(await readFile(join(dir, "made.txt"), "utf8")).toBe("made\n");
    expect((await stat(join(dir, "made.txt"))).uid).toBe(asRoot ? 4242 : process.getuid!());
    expect(existsSync(dir)).toBe(true);
  });

  it("reports timeouts", async () => {
    const c = capture();
    expect(await runSandboxCli(["exec", "--timeout", "300", "--", "sleep 20"], config, c.io)).toBe(124);
    expect(c.err()).toContain("timed out");
  });

  it("ls lists live sandboxes and rm removes one", async () => {
    const provider = new LocalSandboxProvider({ root: config.root, execTimeoutMs: 1000, maxOutputBytes: 1024 });
    const sb = await provider.create({ labels: { thread: "t-9" } });
    const ls = capture();
    expect(await runSandboxCli(["ls"], config, ls.io)).toBe(0);
    expect(ls.out()).toMatch(new RegExp(`^${sb.id}\\tlocal\\t\\S+\\tthread=t-9\\n$`));
    const r = capture();
    expect(await runSandboxCli(["rm", sb.id], config, r.io)).toBe(0);
    expect(await provider.list()).toEqual([]);
    const again = capture();
    expect(await runSandboxCli(["rm", sb.id], config, again.io)).toBe(1);
    expect(again.err()).toContain("no sandbox");
  });

  it("rejects bad usage with exit code 2", async () => {
    for (const argv of [
      [],
      ["exec"],
      ["exec", "--network", "maybe", "--", "true"],
      ["nope"],
      ["ls", "--provider", "docker"],
      ["exec", "--provider", "e2b", "--workspace", "/tmp", "--", "true"],
      ["rm"],
    ]) {
      const c = capture();
      expect(await runSandboxCli(argv, config, c.io), argv.join(" ")).toBe(2);
      expect(c.err()).toMatch(/^open-swe: [^\n]+\n$/);
    }
  });
});
