import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isSandboxError, type Sandbox, type SandboxProvider } from "../../src/sandbox/types.js";

export interface ConformanceTarget {
  provider: SandboxProvider;
  /** The cap the provider was built with (per stream). */
  maxOutputBytes: number;
  /** The vendor returns stdout and stderr as one stream (Daytona). */
  mergedStderr?: boolean;
  /** An id of the provider's shape that does not exist. */
  missingId: string;
  teardown?: () => Promise<void>;
}

export interface ConformanceOptions {
  /** When set, the suite is reported as skipped with this reason in its title. */
  skip?: string;
  /** Per-test timeout; remote services need more. */
  timeoutMs?: number;
}

/** The one behaviour every sandbox provider must show; run for real locally and against mocked vendors. */
export function describeSandboxConformance(label: string, setup: () => Promise<ConformanceTarget>, options: ConformanceOptions = {}): void {
  const title = options.skip ? `${label} — skipped: ${options.skip}` : label;
  describe.skipIf(options.skip !== undefined)(title, { timeout: options.timeoutMs ?? 20_000 }, () => {
    let target: ConformanceTarget;
    let sb: Sandbox;

    beforeEach(async () => {
      target = await setup();
      sb = await target.provider.create({ network: false, labels: { suite: "conformance" } });
    });
    afterEach(async () => {
      await target.provider.destroy(sb.id);
      await target.teardown?.();
    });

    it("runs a command and returns stdout", async () => {
      const r = await sb.exec("echo hello");
      expect(r).toEqual({ exitCode: 0, stdout: "hello\n", stderr: "", truncated: false, timedOut: false });
    });

    it("passes exit codes through", async () => {
      expect((await sb.exec("exit 3")).exitCode).toBe(3);
      expect((await sb.exec("false")).exitCode).toBe(1);
      expect((await sb.exec("true")).exitCode).toBe(0);
    });

    it("captures stderr", async () => {
      const r = await sb.exec("echo out; echo oops >&2; exit 2");
      expect(r.exitCode).toBe(2);
      if (target.mergedStderr) expect(r.stdout + r.stderr).toContain("oops");
      else {
        expect(r.stderr).toBe("oops\n");
        expect(r.stdout).toBe("out\n");
      }
    });

    it("kills the whole process tree on timeout", async () => {
      const started = Date.now();
      // The background child would write the marker after 1 s if it survived the kill.
      const r = await sb.exec("(sleep 1; echo alive > marker) & echo started; sleep 30", { timeoutMs: 400 });
      expect(r.timedOut).toBe(true);
      expect(r.exitCode).toBe(124);
      expect(Date.now() - started).toBeLessThan(5_000);
      await new Promise((res) => setTimeout(res, 1_500));
      expect((await sb.exec("test -e marker")).exitCode).toBe(1);
    });

    it("stops waiting as soon as the caller's signal aborts", async () => {
      const ac = new AbortController();
      const started = Date.now();
      setTimeout(() => ac.abort(), 200);
      const r = await sb.exec("sleep 20", { signal: ac.signal, timeoutMs: 30_000 });
      expect(r).toMatchObject({ timedOut: true, exitCode: 124 });
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it("caps large output and sets truncated", async () => {
      const bytes = target.maxOutputBytes * 3;
      const r = await sb.exec(`head -c ${bytes} /dev/zero | tr '\\0' a; echo done >&2`);
      expect(r.exitCode).toBe(0);
      expect(r.truncated).toBe(true);
      expect(r.stdout.length).toBe(target.maxOutputBytes);
      expect(r.stdout).toMatch(/^a+$/);
    });

    it("round-trips uploads and downloads, binary included", async () => {
      const binary = new Uint8Array(70_000);
      for (let i = 0; i < binary.length; i++) binary[i] = (i * 7919) % 256;
      const up = await sb.upload([
        { path: "nested/dir/bin.dat", content: binary },
        { path: `${sb.workdir}/note.txt`, content: new TextEncoder().encode("héllo\n") },
      ]);
      expect(up.map((u) => u.error)).toEqual([undefined, undefined]);
      expect((await sb.exec("wc -c < nested/dir/bin.dat")).stdout.trim()).toBe("70000");
      const down = await sb.download([`${sb.workdir}/nested/dir/bin.dat`, "note.txt", "missing.txt"]);
      expect(Buffer.from(down[0]!.content!).equals(Buffer.from(binary))).toBe(true);
      expect(new TextDecoder().decode(down[1]!.content!)).toBe("héllo\n");
      expect(down[2]).toMatchObject({ path: "missing.txt", content: null, error: "file_not_found" });
    });

    it("honours cwd and env", async () => {
      await sb.exec("mkdir -p sub/inner");
      expect((await sb.exec("pwd", { cwd: "sub/inner" })).stdout.trim()).toBe(`${sb.workdir}/sub/inner`);
      expect((await sb.exec("pwd", { cwd: `${sb.workdir}/sub` })).stdout.trim()).toBe(`${sb.workdir}/sub`);
      const r = await sb.exec('printf "%s|%s" "$FOO" "$BAR"', { env: { FOO: "bar baz", BAR: "it's" } });
      expect(r.stdout).toBe("bar baz|it's");
    });

    it("reconnects by id and keeps the workspace", async () => {
      await sb.exec("echo kept > state.txt");
      const again = await target.provider.connect(sb.id);
      expect(again.id).toBe(sb.id);
      expect(await again.ping()).toBe(true);
      expect((await again.exec("cat state.txt")).stdout).toBe("kept\n");
      const missing = await target.provider.connect(target.missingId).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isSandboxError(missing, "not_found")).toBe(true);
    });

    it("close releases the handle; destroy removes the sandbox", async () => {
      expect((await target.provider.list()).map((s) => s.id)).toContain(sb.id);
      await sb.close();
      expect(await sb.ping()).toBe(false);
      await expect(sb.exec("true")).rejects.toSatisfy((e: unknown) => isSandboxError(e));
      await target.provider.destroy(sb.id);
      await target.provider.destroy(sb.id);
      expect((await target.provider.list()).map((s) => s.id)).not.toContain(sb.id);
      await expect(target.provider.connect(sb.id)).rejects.toSatisfy((e: unknown) => isSandboxError(e, "not_found"));
    });
  });
}
