// Attack: code in a sandbox looks for the spawner (a root process that starts whatever its stdin asks)
// and tries to write a request into its stdin, or to reach it through /proc.
import { existsSync, readlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { spawner } from "../../src/sandbox/spawner.js";

describe("the spawner's request channel is out of a sandbox's reach", () => {
  it("a sandbox cannot see the spawner's process or write into its stdin", async () => {
    const root = await mkdtemp(join(tmpdir(), "osw-spawner-"));
    const marker = join(root, "pwned");
    // One bubblewrap per command: each is forked by the spawner (a command server is forked by the worker).
    const provider = new LocalSandboxProvider({ root, execTimeoutMs: 20_000, maxOutputBytes: 64 * 1024, commandServer: false });
    try {
      const sb = await provider.create({ network: false });
      expect((await sb.exec("true")).exitCode).toBe(0);
      const pid = spawner().pid()!;
      expect(pid).toBeGreaterThan(0);
      // A request frame would need the spawner's stdin (a pipe or a socket): list every one the sandbox
      // can open for writing (opening writes nothing) and every process it can see.
      const r = await sb.exec(
        `readlink /proc/${pid}/exe 2>/dev/null && echo sees-spawner; ` +
          `for f in /proc/[0-9]*/fd/*; do l="$(readlink "$f" 2>/dev/null)"; case "$l" in pipe:*|socket:*) echo "seen $l"; (: >"$f") 2>/dev/null && echo "open $l";; esac; done; true`,
      );
      expect(r.stdout).not.toContain("sees-spawner");
      const spawnerStdin = readlinkSync(`/proc/${pid}/fd/0`);
      expect(spawnerStdin).toMatch(/^(pipe|socket):\[\d+\]$/);
      expect(r.stdout).toMatch(/^seen (pipe|socket):/m); // the sandbox's own stdio: the listing works
      expect(r.stdout).not.toContain(spawnerStdin);
      // And a write of a request into every pipe it can reach starts nothing on the host.
      await sb.exec(`for f in /proc/[0-9]*/fd/*; do case "$(readlink "$f" 2>/dev/null)" in pipe:*|socket:*) printf 'touch ${marker}' 2>/dev/null >"$f";; esac; done; true`);
      expect(existsSync(marker)).toBe(false);
      expect((await sb.exec("echo still")).stdout).toBe("still\n");
      expect(spawner().pid()).toBe(pid);
      await provider.destroy(sb.id);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
