// Attack: code in a sandbox looks for the spawner (a root process that starts whatever its stdin asks)
// and tries to write a request into its stdin, or to reach it through /proc.
import { existsSync } from "node:fs";
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
    const provider = new LocalSandboxProvider({ root, execTimeoutMs: 20_000, maxOutputBytes: 64 * 1024 });
    try {
      const sb = await provider.create({ network: false });
      expect((await sb.exec("true")).exitCode).toBe(0);
      const pid = spawner().pid()!;
      expect(pid).toBeGreaterThan(0);
      // A well-formed request frame would need the spawner's stdin; try every way the sandbox could name it.
      const r = await sb.exec(
        `readlink /proc/${pid}/exe 2>/dev/null && echo sees-spawner; ` +
          `for f in /proc/${pid}/fd/0 /proc/[0-9]*/fd/*; do case "$(readlink "$f" 2>/dev/null)" in pipe:*) printf 'touch ${marker}' 2>/dev/null >"$f" && echo "wrote $f";; esac; done; true`,
      );
      expect(r.stdout).not.toContain("sees-spawner");
      // Only the sandbox's own pipes (its stdout/stderr) may be writable, never one the spawner reads.
      expect(r.stdout.split("\n").filter((l) => l.startsWith("wrote") && !/\/proc\/(self|\d+)\/fd\/[12]$/.test(l.slice(6)))).toEqual([]);
      expect(existsSync(marker)).toBe(false);
      expect((await sb.exec("echo still")).stdout).toBe("still\n");
      expect(spawner().pid()).toBe(pid);
      await provider.destroy(sb.id);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
