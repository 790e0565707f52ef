// Attack: a repository's MCP server name that rebinds — public when the worker checks it, 127.0.0.1 when
// the SDK transport resolves it again — reaches the worker's loopback over Streamable HTTP and SSE. The
// "worker" is a network + mount namespace this test makes (unshare): a veth carries the public address,
// /etc/resolv.conf points at a rebinding DNS server (node:dgram) the fixture runs, the system resolver
// is the real one. No route leaves the namespace.
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PUBLIC = "100.128.0.9";
const fixture = join(import.meta.dirname, "fixtures", "mcp-rebinding.ts");
const tsx = createRequire(import.meta.url).resolve("tsx");

interface Seen {
  connected: string[];
  tools: string[];
  failures: Array<{ name: string; reason: string }>;
  answers: string[];
  public: string[];
  internal: string[];
}

describe("MCP servers are reached only at the addresses that were checked (DNS rebinding)", () => {
  let dir: string;
  let out: { control: { checked: string[]; plain: string; answers: string[]; internal: string[] }; streamable: Seen; sse: Seen };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "osw-rebind-"));
    await writeFile(join(dir, "resolv.conf"), "nameserver 127.0.0.1\noptions attempts:1 timeout:2\n");
    const setup = [
      "mount --make-rprivate /",
      `mount --bind ${dir}/resolv.conf /etc/resolv.conf`,
      "ip link set lo up",
      "ip link add osw-rb0 type veth peer name osw-rb1",
      `ip addr add ${PUBLIC}/32 dev osw-rb0`,
      "ip link set osw-rb0 up",
      "ip link set osw-rb1 up",
    ].join(" && ");
    const r = spawnSync("unshare", ["--net", "--mount", "--", "sh", "-c", `${setup} && exec "$0" --import "$1" "$2" "$3"`, process.execPath, tsx, fixture, PUBLIC], {
      encoding: "utf8",
      timeout: 90_000,
    });
    if (r.status !== 0) throw new Error(`fixture failed (${r.status}): ${r.stderr}`);
    out = JSON.parse(r.stdout.trim().split("\n").pop()!) as typeof out;
  }, 120_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("the name really rebinds: checked public, a second lookup reaches the loopback service (control)", () => {
    expect(out.control.checked).toEqual([PUBLIC]);
    expect(out.control.answers).toEqual([PUBLIC, "127.0.0.1"]);
    expect(out.control.plain).toBe("INTERNAL-SECRET");
    expect(out.control.internal).toEqual(["GET /"]);
  });

  it("Streamable HTTP: the transport connects only to the checked public address; its tools load; loopback sees nothing", () => {
    expect(out.streamable.failures).toEqual([]);
    expect(out.streamable.tools).toEqual(["mcp__docs__search"]);
    expect(out.streamable.answers).toEqual([PUBLIC]);
    expect(out.streamable.public.length).toBeGreaterThan(0);
    expect(out.streamable.internal).toEqual([]);
  });

  it("SSE: the same; the server's error answer is reported by its status, never its text", () => {
    expect(out.sse.answers).toEqual([PUBLIC]);
    expect(out.sse.public).toEqual(["GET /sse"]);
    expect(out.sse.internal).toEqual([]);
    expect(out.sse.failures).toEqual([{ name: "docs", reason: "HTTP 404 (Not Found)" }]);
    expect(JSON.stringify(out.sse.failures)).not.toContain("no such endpoint");
  });
});
