import { appendFileSync } from "node:fs";
import type nockType from "nock";
import { KNOWN_DRIFT } from "./known-drift.js";
import { isOffContract } from "./typed-bodies.js";
import { type Kind, type RequestVerdict, type Vendor, vendorOf, watchedOrigin } from "./vendor-contracts.js";

/**
 * Puts every nock interceptor on a vendor with a contract (`vendor-contracts.ts`: GitHub, Linear, Slack,
 * Jira, Confluence) under it: the request each one answers is checked when it arrives (the scope's
 * `request` event), the reply it gives when nock plays it (static replies at once; reply functions are
 * wrapped so their result is checked). Violations are collected and `takeViolations` hands them to
 * setup-each's `afterEach`, which fails the test: a throw inside nock's playback would only become a
 * request error the code under test may swallow. Each exchange is counted per vendor, as validated or
 * as having no contract, for `npm run test:contracts`.
 */

interface Tally {
  validated: number;
  noContract: number;
  drift: number;
}
const tallies = new Map<string, Tally>();
let violations: string[] = [];
let currentFile = "";
const byRequest = new WeakMap<object, { vendor: Vendor; verdict: RequestVerdict }>();
const watched = new WeakSet<object>();

type Interceptor = ReturnType<ReturnType<typeof nockType>["get"]>;
interface InterceptorInternals {
  scope: { basePath: string; on(e: "request", fn: (req: { method?: string; path?: string }, i: InterceptorInternals, body: string) => void): void };
  replyFunction?: (this: InterceptorInternals, uri: string, body: unknown) => unknown;
  fullReplyFunction?: (this: InterceptorInternals, uri: string, body: unknown) => unknown;
  statusCode?: number;
  body?: unknown;
  errorMessage?: unknown;
  req?: object;
}
/** The body a static reply was given, before nock turned it into JSON text (typed helpers mark the object). */
const givenBody = new WeakMap<object, unknown>();

/** Starts a test file's counts (a fork that shares its modules across files keeps this module). */
export function setContractFile(file: string): void {
  currentFile = file;
  tallies.clear();
  violations = [];
}

function tallyOf(vendor: string): Tally {
  let t = tallies.get(vendor);
  if (!t) {
    t = { validated: 0, noContract: 0, drift: 0 };
    tallies.set(vendor, t);
  }
  return t;
}

/** This file's counts so far for one vendor (a copy). */
export const vendorTally = (vendor: string): Tally => ({ ...tallyOf(vendor) });

/** Counts one exchange of a vendor (vendor sandbox suites call it for their recorded exchanges too). */
export function countContract(vendor: string, kind: Kind): void {
  tallyOf(vendor)[kind] += 1;
}

function excused(v: string): boolean {
  const operation = v.slice(0, v.indexOf(":"));
  return KNOWN_DRIFT.some((d) => currentFile.endsWith(d.file) && d.operation === operation);
}

/** Keeps the violations no known drift excuses; an exchange with an excused one counts once as drift. */
function record(vendor: string, found: string[]): void {
  if (found.some(excused)) tallyOf(vendor).drift += 1;
  violations.push(...found.filter((v) => !excused(v)));
}

function checkReply(req: object | undefined, status: unknown, body: unknown): void {
  const seen = req ? byRequest.get(req) : undefined;
  if (!seen?.verdict.reply || typeof status !== "number") return;
  if (isOffContract(body)) {
    if (seen.verdict.kind === undefined) countContract(seen.vendor, "noContract");
    tallyOf(seen.vendor).drift += 1;
    return;
  }
  const verdict = seen.verdict.reply(status, body);
  if (seen.verdict.kind === undefined) countContract(seen.vendor, verdict.kind ?? "noContract");
  record(seen.vendor, verdict.violations);
}

function thenCheck(req: object | undefined, result: unknown, pick: (r: unknown) => [unknown, unknown]): unknown {
  if (result && typeof (result as Promise<unknown>).then === "function") {
    return (result as Promise<unknown>).then((r) => {
      const [s, b] = pick(r);
      checkReply(req, s, b);
      return r;
    });
  }
  const [s, b] = pick(result);
  checkReply(req, s, b);
  return result;
}

function watch(i: InterceptorInternals): void {
  const scope = i.scope;
  if (watched.has(scope) || !watchedOrigin(scope.basePath)) return;
  watched.add(scope);
  scope.on("request", (req, interceptor, body) => {
    const contract = vendorOf(scope.basePath, req.path ?? "/");
    if (!contract) return;
    const verdict = contract.request(req.method ?? "GET", req.path ?? "/", body);
    if (verdict.kind) countContract(contract.vendor, verdict.kind);
    record(contract.vendor, verdict.violations);
    byRequest.set(req, { vendor: contract.vendor, verdict });
    if (interceptor.replyFunction || interceptor.fullReplyFunction) return;
    if (interceptor.errorMessage !== undefined) {
      // No answer to check (a network failure): count it where the reply would have decided.
      if (verdict.kind === undefined) countContract(contract.vendor, "noContract");
      return;
    }
    checkReply(req, interceptor.statusCode, givenBody.has(interceptor) ? givenBody.get(interceptor) : interceptor.body);
  });
}

const HOOK = Symbol.for("open-swe.github-contract");
interface Hook {
  patch(i: InterceptorInternals, given?: unknown): void;
}

/** Wraps a new interceptor's reply so its exchange is checked (the current file's state). */
function patch(i: InterceptorInternals, given?: unknown): void {
  if (given !== undefined && typeof given !== "function") givenBody.set(i, given);
  watch(i);
  const fn = i.replyFunction;
  if (fn && fn.length < 3) {
    i.replyFunction = function (uri, body) {
      return thenCheck(this.req, fn.call(this, uri, body), (r) => [this.statusCode, r]);
    };
  }
  const full = i.fullReplyFunction;
  if (full && full.length < 3) {
    i.fullReplyFunction = function (uri, body) {
      return thenCheck(this.req, full.call(this, uri, body), (r) => (Array.isArray(r) ? [r[0], r[1]] : [undefined, undefined]));
    };
  }
}

/**
 * Patches nock's interceptor prototype once per process; the patch calls the hook of the module instance
 * installed last, so a process that runs several test files checks each against its own state.
 */
export function installVendorContracts(nock: typeof nockType): void {
  const probe = nock("https://contract.invalid").get("/");
  const proto = Object.getPrototypeOf(probe) as Record<PropertyKey, unknown> & { reply: (...a: unknown[]) => unknown; replyWithError: (...a: unknown[]) => unknown };
  nock.removeInterceptor(probe as Interceptor);
  nock.cleanAll();
  const existing = proto[HOOK] as Hook | undefined;
  if (existing) {
    existing.patch = patch;
    return;
  }
  const hook: Hook = { patch };
  proto[HOOK] = hook;
  const reply = proto.reply;
  proto.reply = function (this: InterceptorInternals, ...args: unknown[]) {
    const scope = reply.apply(this, args);
    hook.patch(this, args[1]);
    return scope;
  };
  const replyWithError = proto.replyWithError;
  proto.replyWithError = function (this: InterceptorInternals, ...args: unknown[]) {
    const scope = replyWithError.apply(this, args);
    hook.patch(this);
    return scope;
  };
}

/** The violations since the last call (the caller fails the test with them). */
export function takeViolations(): string[] {
  const out = violations;
  violations = [];
  return out;
}

/** Appends this file's counts for `npm run test:contracts` (only when it asked for them), one line per vendor. */
export function flushTally(): void {
  const target = process.env.CONTRACT_TALLY_FILE;
  if (!target) return;
  for (const [vendor, t] of tallies) if (t.validated + t.noContract + t.drift > 0) appendFileSync(target, JSON.stringify({ file: currentFile, vendor, ...t }) + "\n");
}

/** Counts a webhook delivery checked outside nock into GitHub's webhook tally. */
export function countExternal(kind: "validated" | "noContract", found: string[]): string[] {
  countContract("github-webhooks", kind);
  if (found.some(excused)) tallyOf("github-webhooks").drift += 1;
  return found.filter((v) => !excused(v));
}

/** Counts a delivery a test deliberately takes off the contract (it gave its reason). */
export function countExcused(): void {
  tallyOf("github-webhooks").drift += 1;
}
