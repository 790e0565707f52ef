import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { orphanedSandboxMounts, unmountOrphanedSandboxMounts } from "../../src/sandbox/orphaned-mounts.js";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";

const line = (root: string, point: string) => `812 30 254:0 ${root} ${point} rw,nosuid,nodev,relatime shared:1 - ext4 /dev/vda rw`;

describe("orphanedSandboxMounts", () => {
  it.each([
    ["a sandbox view whose directory was deleted", line("/tmp/x/local-0123456789abcdef//deleted", "/run/open-swe/aa/local-0123456789abcdef"), ["/run/open-swe/aa/local-0123456789abcdef"]],
    ["a mount point that was itself deleted", line("/", "/tmp/x/local-0123456789abcdef/workspace//deleted"), ["/tmp/x/local-0123456789abcdef/workspace"]],
    ["a live sandbox view", line("/tmp/x/local-0123456789abcdef", "/run/open-swe/aa/local-0123456789abcdef"), []],
    ["a deleted directory that is not a sandbox", line("/srv/data//deleted", "/mnt/data"), []],
    ["an escaped path", line("/tmp/a\\040b/local-0123456789abcdef//deleted", "/run/open-swe/aa/local-0123456789abcdef"), ["/run/open-swe/aa/local-0123456789abcdef"]],
  ])("%s", (_name, text, expected) => {
    expect(orphanedSandboxMounts(text)).toEqual(expected);
  });

  it("lists nested mounts deepest first, once", () => {
    const text = [
      line("/t/local-0123456789abcdef//deleted", "/run/open-swe/aa/local-0123456789abcdef"),
      line("/w//deleted", "/run/open-swe/aa/local-0123456789abcdef/workspace"),
      line("/t/local-0123456789abcdef//deleted", "/run/open-swe/aa/local-0123456789abcdef"),
    ].join("\n");
    expect(orphanedSandboxMounts(text)).toEqual(["/run/open-swe/aa/local-0123456789abcdef/workspace", "/run/open-swe/aa/local-0123456789abcdef"]);
  });
});

describe.runIf(process.getuid?.() === 0)("unmountOrphanedSandboxMounts (root worker, real mounts)", () => {
  it("removes the view of a sandbox whose directory was deleted without destroy, and leaves a live one alone", async () => {
    const gone = await mkdtemp(join(tmpdir(), "osw-orphan-"));
    const live = await mkdtemp(join(tmpdir(), "osw-orphan-live-"));
    const mounts = async () => readFile("/proc/self/mountinfo", "utf8");
    try {
      const lost = await new LocalSandboxProvider({ root: gone, execTimeoutMs: 10_000, maxOutputBytes: 1024 }).create({ network: false });
      const keptProvider = new LocalSandboxProvider({ root: live, execTimeoutMs: 10_000, maxOutputBytes: 1024 });
      const kept = await keptProvider.create({ network: false });
      await rm(gone, { recursive: true, force: true });
      expect(await mounts()).toContain(`${lost.id}//deleted`);

      const removed = await unmountOrphanedSandboxMounts();
      expect(removed.some((p) => p.endsWith(lost.id))).toBe(true);
      expect(await mounts()).not.toContain(lost.id);
      expect((await kept.exec("echo still here")).stdout).toBe("still here\n");
      await keptProvider.destroy(kept.id);
    } finally {
      await rm(live, { recursive: true, force: true });
      if (existsSync(gone)) await rm(gone, { recursive: true, force: true });
    }
  });
});
