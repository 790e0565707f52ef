// The command server a local sandbox keeps (command-server-program.ts, perl inside the bubblewrap) carries
// every byte of a request and of its output: what a command gets and says is what it would get and say in a
// bubblewrap of its own.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CommandServer } from "../../src/sandbox/providers/command-server.js";
import { COMMAND_SERVER_PROGRAM } from "../../src/sandbox/providers/command-server-program.js";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";

describe("command server: a request and its output, byte for byte", () => {
  let root: string;
  let provider: LocalSandboxProvider;
  let sb: LocalSandbox;
  /** The server's pid in the sandbox: a command run by the server has it as its parent. */
  let serverPid: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-cmdsrv-bytes-"));
    provider = new LocalSandboxProvider({ root, execTimeoutMs: 20_000, maxOutputBytes: 1 << 20 });
    sb = await provider.create({ network: false });
  });
  beforeEach(async () => {
    expect(await sb.startCommandServer()).toBe(true);
    serverPid = (await sb.exec("echo $PPID")).stdout.trim();
    expect((await sb.exec("cat /proc/$PPID/comm")).stdout).toBe("perl\n");
  });
  afterAll(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(root, { recursive: true, force: true });
  });

  it("a command with quotes, newlines and non-ASCII text, in a directory with spaces, with such an environment", async () => {
    await sb.exec("mkdir -p 'a dir/ü'");
    const value = "line one\nline 'two' \"three\" $HOME `x` é✓ a=b";
    const r = await sb.exec(`printf '%s|' "$PPID" "$PWD" "$ODD" 'ça "va"'\necho; echo done ✓`, { cwd: "a dir/ü", env: { ODD: value, EMPTY: "" } });
    expect(r).toMatchObject({ exitCode: 0, stderr: "" });
    expect(r.stdout).toBe(`${serverPid}|${sb.workdir}/a dir/ü|${value}|ça "va"|\ndone ✓\n`);
    expect((await sb.exec('test -z "${EMPTY+set}" && echo unset || echo set', { env: { EMPTY: "" } })).stdout).toBe("set\n");
  });

  it("stdin of 300 KB of every byte value reaches the command whole, and binary output comes back whole", async () => {
    const bytes = Buffer.alloc(300_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
    await sb.upload([{ path: "bytes.bin", content: bytes }]);
    const sha = createHash("sha256").update(bytes).digest("hex");
    expect((await sb.exec("sha256sum bytes.bin")).stdout.split(" ")[0]).toBe(sha);
    const [down] = await sb.download(["bytes.bin"]);
    expect(Buffer.from(down!.content!).equals(bytes)).toBe(true);
  });

  it("a command that never reads its stdin still ends, with its own exit code", async () => {
    // The program itself in a bare bubblewrap of its own pid namespace (its sweep kills every process it sees).
    const server = new CommandServer(async () => {
      const child = spawn(
        "bwrap",
        ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-pid", "--die-with-parent", "/usr/bin/perl", "-e", COMMAND_SERVER_PROGRAM],
        {
          detached: true,
          stdio: ["pipe", "pipe", "pipe"],
        },
      );
      return { child, exited: once(child, "exit") };
    }, 60_000);
    expect(await server.start()).toBe(true);
    const r = await server.run({ cmd: "exit 7", env: {}, cwd: "/", maxOutputBytes: 1024, stdin: new Uint8Array(1 << 20).fill(65) });
    expect(r).toMatchObject({ exitCode: 7, timedOut: false });
    const echoed = await server.run({ cmd: "wc -c", env: {}, cwd: "/", maxOutputBytes: 1024, stdin: new Uint8Array(200_000) });
    expect(echoed?.stdout.toString().trim()).toBe("200000");
    server.stop();
  });

  it("a command killed by a signal says so (128 + the signal), and a NUL byte in a command is refused with a reason", async () => {
    expect(await sb.exec("kill -KILL $$")).toMatchObject({ exitCode: 137 });
    await expect(sb.exec("echo a\u0000b")).rejects.toThrow(/NUL byte/);
  });
});
