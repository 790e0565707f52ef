import { isIP } from "node:net";
import { z } from "zod";
import { classifyAddress } from "../../agent/tools/classify-address.js";

/**
 * What a sandbox's egress proxy refuses beyond the address classes. Plain data: it crosses into the
 * proxy's own process.
 */
export const EgressRules = z.object({
  /** Refused by name on CONNECT and plain HTTP (and every subdomain): API-only hosts. */
  refuseHosts: z.array(z.string()).default([]),
  /**
   * Hosts that serve an API under `/api/` next to git and web traffic (GitHub Enterprise Server):
   * plain-HTTP requests under `/api/` are refused, and so is every CONNECT (a tunnel hides the path).
   */
  refuseApiPathHosts: z.array(z.string()).default([]),
  /** Exceptions to the address classes, e.g. a test's fake upstream on loopback. Never set in production. */
  allow: z.array(z.object({ address: z.string(), port: z.number().int().min(1).max(65535) })).default([]),
});
export type EgressRules = z.infer<typeof EgressRules>;

const normalHost = (host: string): string => host.toLowerCase().replace(/\.$/, "");

/**
 * The GitHub API hosts no sandbox may reach: nothing in a sandbox needs the API (reads come from the
 * mirror, writes are host-side tools), and with it closed a leaked credential cannot post a verdict.
 * github.com itself (git over HTTPS for public dependencies) stays open. For `GHE_HOST`: a GitHub
 * Enterprise Cloud host (`*.ghe.com`) has its API on `api.<host>`; a GitHub Enterprise Server host has
 * it on `<host>/api/v3` — the same name as git — so that host is closed on CONNECT and under `/api/`.
 */
export function githubApiRules(gheHost?: string): EgressRules {
  const refuseHosts = ["api.github.com", "uploads.github.com"];
  const refuseApiPathHosts: string[] = [];
  if (gheHost) {
    const host = normalHost(gheHost.replace(/^https?:\/\//, "").replace(/[/:].*$/, ""));
    refuseHosts.push(`api.${host}`, `uploads.${host}`);
    if (!host.endsWith(".ghe.com")) refuseApiPathHosts.push(host);
  }
  return { refuseHosts, refuseApiPathHosts, allow: [] };
}

const matches = (host: string, names: readonly string[]): boolean => names.some((n) => host === n || host.endsWith(`.${n}`));

/** Why `host` is refused by name before any DNS lookup, or undefined. `path` is undefined for CONNECT. */
export function refusedByName(rules: EgressRules, host: string, path: string | undefined): string | undefined {
  const h = normalHost(host);
  if (matches(h, rules.refuseHosts)) return `${h} is a GitHub API host, closed to sandboxes`;
  if (rules.refuseApiPathHosts.includes(h)) {
    if (path === undefined) return `${h} serves the GitHub API: HTTPS tunnels to it are closed to sandboxes`;
    if (/^\/api(\/|$)/i.test(path)) return `${h}/api/ is the GitHub API, closed to sandboxes`;
  }
  return undefined;
}

/**
 * Why a sandbox may not connect to `address:port`, or undefined: only public unicast addresses that
 * are not one of this machine's own (loopback, private, link-local/metadata, CGNAT, ULA, multicast,
 * reserved and every local interface address are refused), unless an `allow` entry names it.
 */
export function refusedAddress(rules: EgressRules, address: string, port: number): string | undefined {
  const bare = address.replace(/^\[|\]$/g, "");
  if (rules.allow.some((a) => a.address === bare && a.port === port)) return undefined;
  if (!isIP(bare)) return `${address} is not an IP address`;
  const kind = classifyAddress(bare);
  if (kind === "public") return undefined;
  return kind === "host" ? `${bare} is an address of the worker's own machine` : `${bare} is a ${kind} address`;
}
