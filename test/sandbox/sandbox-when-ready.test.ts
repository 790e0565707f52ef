import { describe, expect, it } from "vitest";
import { sandboxWhenReady } from "../../src/sandbox/sandbox-when-ready.js";
import { useLocalSandbox } from "../helpers/local-sandbox.js";

describe("a sandbox whose workspace is still being put in place", () => {
  const box = useLocalSandbox("when-ready");

  it("runs nothing until the workspace is ready, then runs as the sandbox itself", async () => {
    let markReady!: () => void;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    let calls = 0;
    let preparing: Promise<unknown> | undefined;
    const gated = sandboxWhenReady(box.sb, () => {
      calls++;
      return (preparing ??= ready.then(() => box.sb.exec("echo prepared > marker")));
    });
    // Nothing is asked of the workspace until the sandbox is first used.
    expect(calls).toBe(0);
    const read = gated.exec("cat marker");
    expect(calls).toBe(1);
    const first = await Promise.race([read.then(() => "ran"), new Promise((r) => setTimeout(() => r("waiting"), 300))]);
    expect(first).toBe("waiting");
    markReady();
    expect((await read).stdout).toBe("prepared\n");
    expect(await gated.download(["marker"])).toMatchObject([{ path: "marker" }]);
    expect({ id: gated.id, workdir: gated.workdir, ping: await gated.ping() }).toEqual({ id: box.sb.id, workdir: box.sb.workdir, ping: true });
  });

  it("fails every operation with the set-up's own error when the workspace could not be put in place", async () => {
    const broken = Promise.reject(new Error("checkout failed: ENOTDIR"));
    broken.catch(() => undefined);
    const gated = sandboxWhenReady(box.sb, () => broken);
    await expect(gated.exec("touch should-not-exist")).rejects.toThrow(/ENOTDIR/);
    await expect(gated.upload([{ path: "x", content: new Uint8Array([1]) }])).rejects.toThrow(/ENOTDIR/);
    expect(await gated.ping()).toBe(false);
    expect((await box.sb.exec("ls should-not-exist x 2>&1; true")).stdout).toMatch(/No such file/);
  });
});
