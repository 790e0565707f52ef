import { appendFileSync } from "node:fs";
import type nockType from "nock";
import { checkRequest, checkResponse, type Operation } from "./github-openapi.js";
import { KNOWN_DRIFT } from "./known-drift.js";

/**
 * Puts every nock interceptor on api.github.com under GitHub's contract: the request each one answers is
 * checked when it arrives (the scope's `request` event), the reply it gives when nock plays it (static
 * replies at once; reply functions are wrapped so their result is checked). Violations are collected and
 * `takeViolations` hands them to setup-each's `afterEach`, which fails the test: a throw inside nock's
 * playback would only become a request error the code under test may swallow.
 */

const GITHUB = /^https:\/\/api\.github\.com(:443)?$/;

interface Tally { validated: number; noContract: number; drift: number }
const tally: Tally = { validated: 0, noContract: 0, drift: 0 };
let violations: string[] = [];
let currentFile = "";
const byRequest = new WeakMap<object, Operation>();
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

export function setContractFile(file: string): void {
  currentFile = file;
}

function excused(v: string): boolean {
  const operation = v.slice(0, v.indexOf(":"));
  return KNOWN_DRIFT.some((d) => currentFile.endsWith(d.file) && d.operation === operation);
}

/** Keeps the violations no known drift excuses; an exchange with an excused one counts once as drift. */
function record(found: string[]): void {
  if (found.some(excused)) tally.drift += 1;
  violations.push(...found.filter((v) => !excused(v)));
}

function checkReply(req: object | undefined, status: unknown, body: unknown): void {
  const op = req ? byRequest.get(req) : undefined;
  if (op && typeof status === "number") record(checkResponse(op, status, body));
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
  if (watched.has(scope) || !GITHUB.test(scope.basePath)) return;
  watched.add(scope);
  scope.on("request", (req, interceptor, body) => {
    const { operation, verdict } = checkRequest(req.method ?? "GET", req.path ?? "/", body);
    if (verdict.kind === "no-contract") tally.noContract += 1;
    else tally.validated += 1;
    record(verdict.violations);
    if (!operation) return;
    byRequest.set(req, operation);
    if (interceptor.replyFunction || interceptor.fullReplyFunction || interceptor.errorMessage !== undefined) return;
    checkReply(req, interceptor.statusCode, interceptor.body);
  });
}

const HOOK = Symbol.for("open-swe.github-contract");
interface Hook { patch(i: InterceptorInternals): void }

/** Wraps a new interceptor's reply so its exchange is checked (the current file's state). */
function patch(i: InterceptorInternals): void {
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
export function installGitHubContract(nock: typeof nockType): void {
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
    hook.patch(this);
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

/** Appends this file's counts for `npm run test:contracts` (only when it asked for them). */
export function flushTally(): void {
  const target = process.env.CONTRACT_TALLY_FILE;
  if (!target || tally.validated + tally.noContract + tally.drift === 0) return;
  appendFileSync(target, JSON.stringify({ file: currentFile, vendor: "github", ...tally }) + "\n");
}

/** Counts a check made outside nock (a webhook payload) into the same tally. */
export function countExternal(kind: "validated" | "noContract", found: string[]): string[] {
  tally[kind] += 1;
  if (found.some(excused)) tally.drift += 1;
  return found.filter((v) => !excused(v));
}

/** Counts an exchange a test deliberately takes off the contract (it gave its reason). */
export function countExcused(): void {
  tally.drift += 1;
}
