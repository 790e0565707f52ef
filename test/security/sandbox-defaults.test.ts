// Attack surface: a sandbox whose stored metadata predates a setting. It must come back with the
// safe value (egress only through the filtering proxy, or no network), never the host's network.
import { createServer, type Server } from "node:http";
import { chown, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";

describe("sandbox metadata from before a setting existed comes back safe", () => {
  let root: string;
  let server: Server;
  let port: number;
  let provider: LocalSandboxProvider;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-defaults-"));
    server = createServer((_req, res) => res.end("host service\n"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as { port: number }).port;
    provider = new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes: 1 << 20 });
  });
  afterAll(async () => {
    server.close();
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(root, { recursive: true, force: true });
  });

  const reachHost = () => `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && printf "GET / HTTP/1.0\\r\\n\\r\\n" >&3 && timeout 5 cat <&3'`;

  for (const dropped of [["egress"], ["egress", "network"]]) {
    it(`without ${dropped.join(" and ")} in meta.json the host's loopback stays out of reach`, async () => {
      const sb = await provider.create({ network: true });
      const file = join(root, sb.id, "meta.json");
      const meta = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
      for (const key of dropped) delete meta[key];
      await writeFile(file, JSON.stringify(meta));
      const again = await provider.connect(sb.id);
      const r = await again.exec(reachHost());
      expect(r.stdout).not.toContain("host service");
      expect(r.exitCode).not.toBe(0);
      await provider.destroy(sb.id);
    });
  }

  it("a sandbox from before sandboxes had their own host user is handed to that user, not left root's", async () => {
    expect(process.getuid!(), "runs as root, as CI does").toBe(0);
    const sb = await provider.create({ network: false });
    const file = join(root, sb.id, "meta.json");
    const meta = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    delete meta.owner;
    await writeFile(file, JSON.stringify(meta));
    // What the old root-mapped sandbox left: root-owned files in its workspace.
    const onDisk = join(root, sb.id, "workspace");
    await writeFile(join(onDisk, "old.txt"), "old\n");
    await chown(onDisk, 0, 0);
    const again = await provider.connect(sb.id);
    expect((await again.exec("echo new >> old.txt && cat old.txt")).stdout).toBe("old\nnew\n");
    expect((await stat(join(onDisk, "old.txt"))).uid).toBe(65533);
    expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({ owner: { uid: 65533, gid: 65533 } });
    await provider.destroy(sb.id);
  });
});
