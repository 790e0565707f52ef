import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { SandboxBackend } from "../../src/sandbox/deepagents-backend.js";
import { E2bSandboxProvider } from "../../src/sandbox/providers/e2b.js";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import type { E2bClient, E2bHandle } from "../../src/sandbox/providers/e2b.js";
import type { Sandbox } from "../../src/sandbox/types.js";
import { fakeE2bClient } from "./fakes/fake-e2b.js";

/**
 * A vendor whose file write is not atomic (as a chunked upload can be): the first half lands, then
 * the second is appended by a later call. Two of these racing on one path interleave.
 */
function chunkyWrites(client: E2bClient): E2bClient {
  const wrap = (h: E2bHandle): E2bHandle => ({
    ...h,
    async write(path, data) {
      const half = Math.floor(data.byteLength / 2);
      const part = `${path}.part-${Math.random().toString(36).slice(2)}`;
      await h.write(path, data.subarray(0, half));
      await h.write(part, data.subarray(half));
      await h.run(`cat '${part}' >> '${path}' && rm -f '${part}'`, { cwd: "/", envs: {}, timeoutMs: 10_000 });
    },
  });
  return { ...client, create: async (o) => wrap(await client.create(o)), connect: async (id) => wrap(await client.connect(id)) };
}

const source = (values: number[]) => values.map((v, i) => `export const value${i} = ${v};\n`).join("");

/** Issue 9: parallel tool calls editing one file lose nothing and never corrupt it. */
describe.each([
  ["local provider", "/workspace", 20],
  ["vendor base (e2b SDK fake over bubblewrap, non-atomic writes)", "/home/user/workspace", 10],
])("parallel edits of one file: %s", (_name, workdir, n) => {
  let root: string;
  let sb: Sandbox;
  let backend: SandboxBackend;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-edits-"));
    const local = new LocalSandboxProvider({ root, workdir, execTimeoutMs: 30_000, maxOutputBytes: 1 << 20 });
    if (workdir === "/workspace") sb = await local.create({ network: false });
    else sb = await new E2bSandboxProvider(readSandboxConfig({ SANDBOX_TYPE: "e2b", E2B_API_KEY: "e2b_test" }), chunkyWrites(fakeE2bClient(local))).create({ network: false });
    backend = new SandboxBackend(sb, { timeoutMs: 30_000 });
  });
  afterAll(async () => {
    await sb.close();
    await rm(root, { recursive: true, force: true });
  });

  it(`${n} edits at once, each to its own line, all land exactly`, async () => {
    const path = `${workdir}/src/values.ts`;
    expect((await backend.write(path, source(Array(n).fill(0)))).error).toBeUndefined();
    const results = await Promise.all(Array.from({ length: n }, (_, i) => backend.edit(path, `value${i} = 0;`, `value${i} = ${i * 11};`)));
    for (const r of results) expect(r.error).toBeUndefined();
    const [file] = await backend.downloadFiles([path]);
    expect(new TextDecoder().decode(file!.content!)).toBe(source(Array.from({ length: n }, (_, i) => i * 11)));
  });

  it("parallel writes of different lengths to one path leave exactly one of them, never a mix", async () => {
    const path = "src/racy.txt";
    const bodies = Array.from({ length: n }, (_, i) => `${String(i).padStart(3, "0")}:${"x".repeat(((n - i) * 997) % 5000)}\n`);
    const ups = await Promise.all(bodies.map((b) => sb.upload([{ path, content: new TextEncoder().encode(b) }])));
    for (const u of ups) expect(u[0]?.error).toBeUndefined();
    const [file] = await sb.download([path]);
    expect(bodies).toContain(new TextDecoder().decode(file!.content!));
    // No temp file is left behind.
    expect((await sb.exec("ls -A src")).stdout.split("\n").filter((l) => /^\.open-swe|\.part-/.test(l))).toEqual([]);
  });
});
