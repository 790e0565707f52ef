import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { isSandboxError } from "../../src/sandbox/types.js";
import { describeSandboxConformance } from "./conformance.js";

describeSandboxConformance("local (bubblewrap) provider", async () => {
  const root = await mkdtemp(join(tmpdir(), "osw-local-"));
  const maxOutputBytes = 64 * 1024;
  return {
    provider: new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes }),
    maxOutputBytes,
    missingId: "local-0000000000000000",
    teardown: () => rm(root, { recursive: true, force: true }),
  };
});

describe("local provider specifics", () => {
  it("an aborted signal kills the command tree at once", async () => {
    const root = await mkdtemp(join(tmpdir(), "osw-local-"));
    try {
      const provider = new LocalSandboxProvider({ root, execTimeoutMs: 30_000, maxOutputBytes: 1024 });
      const sb = await provider.create({ network: false });
      const ac = new AbortController();
      const started = Date.now();
      setTimeout(() => ac.abort(), 200);
      const r = await sb.exec("sleep 30 & sleep 30", { signal: ac.signal });
      expect(r).toMatchObject({ timedOut: true, exitCode: 124 });
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("rejects ids that are not local ids and env names that are not names", async () => {
    const root = await mkdtemp(join(tmpdir(), "osw-local-"));
    try {
      const provider = new LocalSandboxProvider({ root, execTimeoutMs: 30_000, maxOutputBytes: 1024 });
      await expect(provider.connect("../../etc")).rejects.toSatisfy((e: unknown) => isSandboxError(e, "not_found"));
      const sb = await provider.create({ network: false });
      await expect(sb.exec("true", { env: { "A=B": "x" } })).rejects.toSatisfy((e: unknown) => isSandboxError(e, "invalid"));
      await expect(provider.create({ hostWorkspace: join(root, "missing") })).rejects.toSatisfy((e: unknown) => isSandboxError(e, "invalid"));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("local provider: a sandbox to work in", () => {
  it("keeps $HOME (caches, venvs) between commands and across reconnects; /tmp is fresh per command", async () => {
    const root = await mkdtemp(join(tmpdir(), "osw-local-home-"));
    const provider = new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes: 1 << 20 });
    try {
      const sb = await provider.create({ network: false });
      const first = await sb.exec("echo $HOME && mkdir -p ~/.cache/pip ~/.npm && echo cached > ~/.cache/pip/wheel && echo t > /tmp/t && cd ~ && pwd");
      expect(first).toMatchObject({ exitCode: 0, stdout: "/home/sandbox\n/home/sandbox\n" });
      expect((await sb.exec("cat ~/.cache/pip/wheel; test -e /tmp/t && echo tmp-kept || echo tmp-fresh")).stdout).toBe("cached\ntmp-fresh\n");
      const again = await provider.connect(sb.id);
      expect((await again.exec("cat /home/sandbox/.cache/pip/wheel")).stdout).toBe("cached\n");
      const other = await provider.create({ network: false });
      expect((await other.exec("ls -A ~")).stdout).toBe("");
      await provider.destroy(other.id);
      await provider.destroy(sb.id);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("`id` and the user database name the sandbox user, never a host user", async () => {
    const root = await mkdtemp(join(tmpdir(), "osw-local-id-"));
    const provider = new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes: 1 << 20 });
    try {
      const sb = await provider.create({ network: false });
      const r = await sb.exec("id; whoami; cut -d: -f1 /etc/passwd | tr '\\n' ' '; echo; ls -ld ~ /workspace | awk '{print $3}'");
      expect(r.stdout).toBe("uid=1000(sandbox) gid=1000(sandbox) groups=1000(sandbox)\nsandbox\nroot sandbox nobody \nsandbox\nsandbox\n");
      await provider.destroy(sb.id);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("local provider: files the host writes", () => {
  it("uploads (new directories too) stay changeable by the sandbox user", async () => {
    const root = await mkdtemp(join(tmpdir(), "osw-local-up-"));
    const provider = new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes: 1 << 20 });
    try {
      const sb = await provider.create({ network: false });
      const [up] = await sb.upload([{ path: "a/b/c.txt", content: new TextEncoder().encode("one\n") }]);
      expect(up?.error).toBeUndefined();
      const r = await sb.exec("echo two >> a/b/c.txt && mkdir a/b/d && rm a/b/c.txt && rmdir a/b/d && echo ok");
      expect(r).toMatchObject({ exitCode: 0, stdout: "ok\n" });
      await provider.destroy(sb.id);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
