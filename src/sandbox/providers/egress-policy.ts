import { isIP } from "node:net";
import { z } from "zod";
import { classifyAddress } from "../../net/classify-address.js";

/**
 * What a sandbox's egress proxy refuses beyond the address classes. Plain data: it crosses into the
 * proxy's own process.
 */
export const EgressRules = z.object({
  /** Refused by name on CONNECT and plain HTTP, with every subdomain: the GitHub API hosts. */
  refuseHosts: z.array(z.string()).default([]),
  /** Exceptions to the address classes, e.g. a test's fake upstream on loopback. Never set in production. */
  allow: z.array(z.object({ address: z.string(), port: z.number().int().min(1).max(65535) })).default([]),
  /** Connections one sandbox may hold through the proxy at once (`SANDBOX_EGRESS_MAX_CONNECTIONS`). */
  maxConnectionsPerSandbox: z.number().int().positive().optional(),
});
export type EgressRules = z.infer<typeof EgressRules>;

const normalHost = (host: string): string => host.toLowerCase().replace(/\.$/, "");

/**
 * The GitHub API hosts no sandbox may reach: nothing in a sandbox needs the API (reads come from the
 * mirror, writes are host-side tools), and with it closed a leaked credential cannot post a verdict.
 * github.com itself (git over HTTPS for public dependencies) stays open. For `GHE_HOST`: a GitHub
 * Enterprise Cloud host (`*.ghe.com`) has its API on `api.<host>`; a GitHub Enterprise Server host
 * serves it under `<host>/api/` — the same name as git, and a tunnel hides the path (a path rule on
 * plain HTTP would be one `%61pi` away from bypassed) — so that whole host is closed.
 */
export function githubApiRules(gheHost?: string, apiUrl?: string): EgressRules {
  const refuseHosts = ["api.github.com", "uploads.github.com"];
  // GITHUB_API_URL (GHES over http, a proxy): whatever host it names is the GitHub API too.
  if (apiUrl) {
    const host = normalHost(apiUrl.replace(/^https?:\/\//, "").replace(/[/:].*$/, ""));
    if (host && !refuseHosts.includes(host)) refuseHosts.push(host);
  }
  if (gheHost) {
    const host = normalHost(gheHost.replace(/^https?:\/\//, "").replace(/[/:].*$/, ""));
    if (host.endsWith(".ghe.com")) refuseHosts.push(`api.${host}`, `uploads.${host}`);
    else refuseHosts.push(host);
  }
  return { refuseHosts, allow: [] };
}

/** Why `host` is refused by name before any DNS lookup, or undefined. */
export function refusedByName(rules: EgressRules, host: string): string | undefined {
  const h = normalHost(host);
  const hit = rules.refuseHosts.find((n) => h === n || h.endsWith(`.${n}`));
  return hit ? `${h} serves the GitHub API, closed to sandboxes` : undefined;
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
