import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { sandboxWhenReady } from "../../src/sandbox/sandbox-when-ready.js";
import type { Sandbox } from "../../src/sandbox/types.js";

describe("a sandbox whose workspace is still being put in place", () => {
  let root: string;
  let provider: LocalSandboxProvider;
  let sb: Sandbox;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-when-ready-"));
    provider = new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes: 1 << 20 });
    sb = await provider.create({ network: false });
  });
  afterAll(async () => {
    await provider.destroy(sb.id);
    await rm(root, { recursive: true, force: true });
  });

  it("runs nothing until the workspace is ready, then runs as the sandbox itself", async () => {
    let markReady!: () => void;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    const gated = sandboxWhenReady(
      sb,
      ready.then(() => sb.exec("echo prepared > marker")),
    );
    const read = gated.exec("cat marker");
    const first = await Promise.race([read.then(() => "ran"), new Promise((r) => setTimeout(() => r("waiting"), 300))]);
    expect(first).toBe("waiting");
    markReady();
    expect((await read).stdout).toBe("prepared\n");
    expect(await gated.download(["marker"])).toMatchObject([{ path: "marker" }]);
    expect({ id: gated.id, workdir: gated.workdir, ping: await gated.ping() }).toEqual({ id: sb.id, workdir: sb.workdir, ping: true });
  });

  it("fails every operation with the set-up's own error when the workspace could not be put in place", async () => {
    const broken = Promise.reject(new Error("checkout failed: ENOTDIR"));
    const gated = sandboxWhenReady(sb, broken);
    await expect(gated.exec("touch should-not-exist")).rejects.toThrow(/ENOTDIR/);
    await expect(gated.upload([{ path: "x", content: new Uint8Array([1]) }])).rejects.toThrow(/ENOTDIR/);
    expect(await gated.ping()).toBe(false);
    expect((await sb.exec("ls should-not-exist x 2>&1; true")).stdout).toMatch(/No such file/);
  });
});
