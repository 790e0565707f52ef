import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SandboxBackend } from "../../src/sandbox/deepagents-backend.js";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";

describe("SandboxBackend (deepagents BaseSandbox over the local provider)", () => {
  let root: string;
  let sb: LocalSandbox;
  let backend: SandboxBackend;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-da-"));
    const provider = new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes: 1 << 20 });
    sb = await provider.create({ network: false });
    backend = new SandboxBackend(sb, { timeoutMs: 5_000 });
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("execute runs inside the sandbox with combined output and the exit code", async () => {
    expect(backend.id).toBe(sb.id);
    expect(await backend.execute("echo out; echo err >&2; exit 3")).toEqual({ output: "out\nerr\n", exitCode: 3, truncated: false });
    expect((await backend.execute("cat /etc/hostname 2>/dev/null; hostname")).output).toContain("sandbox");
  });

  it("derives write, read, edit, ls, grep and glob from the primitives", async () => {
    expect((await backend.write("/workspace/src/app.ts", "export const greeting = 'hello';\n")).error).toBeUndefined();
    expect((await sb.exec("cat src/app.ts")).stdout).toBe("export const greeting = 'hello';\n");

    const read = await backend.read("/workspace/src/app.ts");
    expect(read.error).toBeUndefined();
    expect(String(read.content)).toContain("greeting = 'hello'");

    const edit = await backend.edit("/workspace/src/app.ts", "'hello'", "'bonjour'");
    expect(edit.error).toBeUndefined();
    expect((await sb.exec("cat src/app.ts")).stdout).toBe("export const greeting = 'bonjour';\n");

    const ls = await backend.ls("/workspace");
    expect(ls.files?.map((f) => f.path)).toEqual(expect.arrayContaining([expect.stringMatching(/\/workspace\/src\/?$/)]));

    const grep = await backend.grep("bonjour", "/workspace");
    expect(grep.matches?.map((m) => m.path)).toEqual(["/workspace/src/app.ts"]);

    const glob = await backend.glob("**/*.ts", "/workspace");
    expect(glob.files?.map((f) => f.path)).toEqual([expect.stringMatching(/src\/app\.ts$/)]);
  });

  it("reports file errors the way deepagents expects and cannot write outside the workspace", async () => {
    const [missing] = await backend.downloadFiles(["/workspace/nope.txt"]);
    expect(missing).toEqual({ path: "/workspace/nope.txt", content: null, error: "file_not_found" });
    const [outside] = await backend.uploadFiles([["/etc/evil", new Uint8Array([1])]]);
    expect(outside?.error).toBe("invalid_path");
    expect((await backend.write("/etc/evil", "x")).error).toBeDefined();
  });
});
