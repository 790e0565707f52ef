import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";
import { sandboxFiles } from "../../src/sandbox/sandbox-files.js";
import { isSandboxError } from "../../src/sandbox/types.js";

describe("sandboxFiles (derived from exec/upload/download)", () => {
  let root: string;
  let sb: LocalSandbox;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-files-"));
    sb = await new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes: 1 << 20 }).create({ network: false });
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("writes, reads, checks existence and lists", async () => {
    const files = sandboxFiles(sb);
    await files.write("docs/a b.md", "# title\n");
    await files.write("docs/bin", new Uint8Array([0, 255, 10]));
    await files.write(".hidden", "x");
    expect(await files.readText("docs/a b.md")).toBe("# title\n");
    expect([...(await files.read("docs/bin"))]).toEqual([0, 255, 10]);
    expect(await files.exists("docs/a b.md")).toBe(true);
    expect(await files.exists("docs/missing")).toBe(false);
    expect(await files.ls(".")).toEqual([
      { name: ".hidden", isDir: false },
      { name: "docs", isDir: true },
    ]);
    expect((await files.ls("docs")).map((e) => e.name)).toEqual(["a b.md", "bin"]);
  });

  it("raises typed errors", async () => {
    const files = sandboxFiles(sb);
    await expect(files.read("nope")).rejects.toSatisfy((e: unknown) => isSandboxError(e, "not_found"));
    await expect(files.ls("nope")).rejects.toSatisfy((e: unknown) => isSandboxError(e, "not_found"));
    await expect(files.write("/etc/x", "y")).rejects.toSatisfy((e: unknown) => isSandboxError(e, "invalid"));
  });
});
