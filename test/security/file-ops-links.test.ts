import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";
import { shellQuote } from "../../src/shared/shell-quote.js";

async function listAll(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

/** Host-side file operations never follow the sandbox's links (issue 8, item 4). */
describe("uploads and downloads against a sandbox that plants and swaps links", () => {
  let tmp: string;
  let outside: string;
  let provider: LocalSandboxProvider;
  let sb: LocalSandbox;

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "osw-links-"));
    outside = join(tmp, "outside");
    await mkdir(outside);
    await writeFile(join(tmp, "host-secret"), "s3cr3t\n");
    provider = new LocalSandboxProvider({ root: join(tmp, "sandboxes"), execTimeoutMs: 60_000, maxOutputBytes: 1 << 20 });
    sb = await provider.create({ network: false });
  });
  afterAll(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(tmp, { recursive: true, force: true });
  });

  it("a racing swapper inside the sandbox during 1,000 uploads creates nothing outside the workspace", { timeout: 120_000 }, async () => {
    // Flips `d` (and `d/sub`) between a real directory and links to host directories, as fast as it can.
    const swapper = sb.exec(
      `i=0; while [ ! -e stop ] && [ $i -lt 200000 ]; do i=$((i+1)); rm -rf d; ln -sfn ${shellQuote(outside)} d; rm -f d; mkdir -p d; ln -sfn ${shellQuote(outside)} d/sub; rm -f d/sub; ln -sfn / d/sub; rm -f d/sub; done`,
      { timeoutMs: 60_000 },
    );
    await new Promise((r) => setTimeout(r, 50));
    const results = [];
    for (let round = 0; round < 10; round++) {
      const files = Array.from({ length: 100 }, (_, i) => ({ path: i % 2 ? `d/sub/f-${round}-${i}` : `d/f-${round}-${i}`, content: new TextEncoder().encode(`payload ${round} ${i}\n`) }));
      results.push(...(await sb.upload(files)));
    }
    await sb.upload([{ path: "stop", content: new Uint8Array() }]);
    const swapped = await swapper;
    expect(swapped.timedOut).toBe(false);
    expect(results).toHaveLength(1000);
    expect(await listAll(outside)).toEqual([]);
    for (const r of results) expect([undefined, "permission_denied", "is_directory"]).toContain(r.error);
    expect(existsSync(join("/", "f-0-0"))).toBe(false);
    expect(existsSync(join("/", "sub"))).toBe(false);
  });

  it("reads of links to host paths and of FIFOs are refused with one error that reveals nothing", async () => {
    const secret = join(tmp, "host-secret");
    const r = await sb.exec(
      [
        `ln -sfn ${shellQuote(secret)} to-host-file`,
        `ln -sfn ${shellQuote(join(tmp, "no-such-file"))} to-missing-host-file`,
        "ln -sfn /etc/shadow to-shadow",
        "ln -sfn /etc/passwd to-passwd",
        "ln -sfn /nonexistent/x to-nowhere",
        `ln -sfn ${shellQuote(tmp)} to-host-dir`,
        "ln -sfn / to-root",
        "rm -f fifo && mkfifo fifo",
        "ln -sfn fifo to-fifo",
        "echo inside > real.txt && ln -sfn real.txt to-real",
      ].join(" && "),
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const refused = [
      "to-host-file",
      "to-missing-host-file",
      "to-shadow",
      "to-passwd",
      "to-nowhere",
      "to-host-dir/host-secret",
      "to-host-dir/none",
      "to-root/etc/passwd",
      "to-root/etc/shadow",
      "fifo",
      "to-fifo",
      "to-host-dir",
      "to-root",
    ];
    const down = await sb.download(refused);
    for (const d of down) expect(d, d.path).toEqual({ path: d.path, content: null, error: "permission_denied" });
    // A link that stays inside the workspace is an ordinary read.
    const [ok] = await sb.download(["to-real"]);
    expect(new TextDecoder().decode(ok!.content!)).toBe("inside\n");

    // Writes through the same links land nowhere on the host and never replace what they point at.
    const up = await sb.upload(["to-host-file", "to-host-dir/new", "to-root/tmp/new", "to-passwd"].map((path) => ({ path, content: new Uint8Array([0x41]) })));
    expect(up.map((u) => u.error)).toEqual(["permission_denied", "permission_denied", "permission_denied", "permission_denied"]);
    expect(existsSync(join(tmp, "new"))).toBe(false);
    expect((await sb.exec("test -L to-host-file && test -L to-passwd")).exitCode).toBe(0);
  });
});
