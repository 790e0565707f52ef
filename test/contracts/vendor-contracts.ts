import { checkGhesRequest, checkRequest, checkResponse, type ContractVerdict, type Operation } from "./github-openapi.js";
import { checkLinearExchange } from "./linear-graphql.js";
import { isTypedBody } from "./typed-bodies.js";

/**
 * Which contract holds each vendor's mocked HTTP exchanges (test/contracts/README.md). The nock hook
 * (`nock-contract.ts`) asks `vendorOf` for every exchange it plays, then `request` when the request
 * arrives and the returned `reply` when the mock answers. The names are what `npm run test:contracts`
 * prints; vendor sandbox suites count theirs through `countContract` under their own names.
 */
export type Vendor = "github" | "github-ghes" | "github-webhooks" | "slack" | "linear" | "jira" | "confluence";

export type Kind = "validated" | "noContract";

export interface ReplyVerdict {
  /** How the exchange counts, when the request alone could not tell. */
  kind?: Kind;
  violations: string[];
}

export interface RequestVerdict {
  /** How the exchange counts; undefined: the reply decides (a body typed against the vendor or not). */
  kind: Kind | undefined;
  violations: string[];
  reply?: (status: number, body: unknown) => ReplyVerdict;
}

interface VendorContract {
  vendor: Vendor;
  matches(origin: string, path: string): boolean;
  request(method: string, path: string, body: string): RequestVerdict;
}

/** Slack, Jira and Confluence: a body built through the typed helpers was checked by the compiler. */
const typedReply = (_status: number, body: unknown): ReplyVerdict => ({ kind: isTypedBody(body) ? "validated" : "noContract", violations: [] });

const ATLASSIAN = /^https:\/\/[\w-]+\.atlassian\.net(:443)?$/;

/** GitHub's REST verdict as the hook reads it: the reply is checked against the operation the request found. */
function githubVerdict({ operation, verdict }: { operation?: Operation; verdict: ContractVerdict }): RequestVerdict {
  return {
    kind: verdict.kind === "no-contract" ? "noContract" : "validated",
    violations: verdict.violations,
    ...(operation ? { reply: (status: number, b: unknown) => ({ violations: checkResponse(operation, status, b) }) } : {}),
  };
}

/**
 * A GitHub Enterprise Server's API, as a test configures it with GHE_HOST or GITHUB_API_URL: `/api/v3/…`
 * (and `/api/graphql`) on any http(s) host but github.com's own.
 */
function isGhesApi(origin: string, path: string): boolean {
  let host: string;
  try {
    host = new URL(origin).hostname;
  } catch {
    return false;
  }
  return host !== "github.com" && !host.endsWith(".github.com") && (path.startsWith("/api/v3/") || path === "/api/graphql" || path.startsWith("/api/graphql?"));
}

const CONTRACTS: readonly VendorContract[] = [
  {
    vendor: "github",
    matches: (origin) => /^https:\/\/api\.github\.com(:443)?$/.test(origin),
    request: (method, path, body) => githubVerdict(checkRequest(method, path, body)),
  },
  {
    vendor: "linear",
    matches: (origin, path) => /^https:\/\/api\.linear\.app(:443)?$/.test(origin) && path.startsWith("/graphql"),
    request: (_method, _path, body) => ({ kind: "validated", violations: [], reply: (status, answer) => ({ violations: checkLinearExchange(body, status, answer).violations }) }),
  },
  { vendor: "slack", matches: (origin, path) => /^https:\/\/slack\.com(:443)?$/.test(origin) && path.startsWith("/api/"), request: () => ({ kind: undefined, violations: [], reply: typedReply }) },
  { vendor: "confluence", matches: (origin, path) => ATLASSIAN.test(origin) && path.startsWith("/wiki/"), request: () => ({ kind: undefined, violations: [], reply: typedReply }) },
  { vendor: "jira", matches: (origin, path) => ATLASSIAN.test(origin) && !path.startsWith("/wiki/"), request: () => ({ kind: undefined, violations: [], reply: typedReply }) },
  { vendor: "github-ghes", matches: isGhesApi, request: (method, path, body) => githubVerdict(checkGhesRequest(method, path, body)) },
];

export const vendorOf = (origin: string, path: string): VendorContract | undefined => CONTRACTS.find((c) => c.matches(origin, path));

/** The hosts a scope may serve for any vendor above (a scope is watched only then). */
export const watchedOrigin = (origin: string): boolean =>
  CONTRACTS.some((c) => c.matches(origin, "/api/") || c.matches(origin, "/api/v3/") || c.matches(origin, "/graphql") || c.matches(origin, "/wiki/"));
