// Attack surface: a sandbox whose stored metadata predates a setting. It must come back with the
// safe value (egress only through the filtering proxy, or no network), never the host's network.
import { createServer, type Server } from "node:http";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
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
});
