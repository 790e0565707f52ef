// Attack: reach a service the worker host binds to 0.0.0.0 / :: through one of the host's own
// non-loopback addresses, which the address classes alone call public. The "host" is a network
// namespace this test makes (unshare --net) with a veth pair carrying addresses we choose; the
// egress proxy, the agent's http guard and a real sandbox run inside it. No route leaves it.
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const V4 = "100.128.0.1";
const V6 = "2a00:1450::7";
const fixture = join(import.meta.dirname, "fixtures", "egress-host-addresses.ts");
const tsx = createRequire(import.meta.url).resolve("tsx");

describe("egress refuses the worker host's own addresses", () => {
  let dir: string;
  let out: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "osw-hostaddr-"));
    const setup = [
      "ip link set lo up",
      "ip link add osw-test0 type veth peer name osw-test1",
      `ip addr add ${V4}/32 dev osw-test0`,
      `ip -6 addr add ${V6}/128 dev osw-test0 nodad`,
      "ip link set osw-test0 up",
      "ip link set osw-test1 up",
    ].join(" && ");
    const r = spawnSync("unshare", ["--net", "--", "sh", "-c", `${setup} && exec "$0" --import "$1" "$2" "$3" "$4" "$5"`, process.execPath, tsx, fixture, dir, V4, V6], {
      encoding: "utf8",
      timeout: 60_000,
    });
    if (r.status !== 0) throw new Error(`fixture failed (${r.status}): ${r.stderr}`);
    out = JSON.parse(r.stdout.trim().split("\n").pop()!) as Record<string, string>;
  }, 90_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("the service really is reachable through those addresses (control)", () => {
    expect(out.directV4).toContain("host service");
    expect(out.directV6).toContain("host service");
  });

  it("the egress proxy refuses them on CONNECT and plain HTTP, IPv4, IPv6 and IPv4-mapped", () => {
    for (const key of ["proxyConnectV4", "proxyGetV4", "proxyConnectV6", "proxyConnectMapped"]) {
      expect(out[key], key).toMatch(/^HTTP\/1\.1 403 [\s\S]*an address of the worker's own machine\n$/);
      expect(out[key], key).not.toContain("host service");
    }
  });

  it("a real sandbox cannot reach them through its proxy", () => {
    expect(out.sandboxConnectV4).toMatch(/^HTTP\/1\.1 403 [\s\S]*an address of the worker's own machine\n$/);
  });

  it("the agent's http guard refuses them, by literal and after DNS resolution", () => {
    expect(out.guardV4).toMatch(/^url_blocked: .*an address of this machine$/);
    expect(out.guardV6ByName).toMatch(/^url_blocked: .*resolves to 2a00:1450::7, an address of this machine$/);
  });

  it("a name that does not resolve is a 502 saying so, not a 403", () => {
    for (const key of ["proxyDnsFailure", "sandboxDnsFailure"]) {
      expect(out[key], key).toMatch(/^HTTP\/1\.1 502 Bad Gateway[\s\S]*DNS lookup of no-such-host\.invalid failed \((EAI_AGAIN|ENOTFOUND)\)/);
    }
  });

  it("the GitHub API host is refused by name, before any lookup", () => {
    expect(out.proxyGithubApi).toMatch(/^HTTP\/1\.1 403 [\s\S]*api\.github\.com serves the GitHub API/);
  });
});
