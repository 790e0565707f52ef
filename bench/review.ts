import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { createLogger } from "../src/logger.js";
import type { NewFinding } from "../src/review/findings.js";
import { FindingsStore } from "../src/review/findings-store.js";
import { runReviewPass, type ReviewPassInput } from "../src/review/run-review-pass.js";
import { startEmbeddedRedis } from "../src/store/embedded-redis.js";
import { connectRedis } from "../src/store/redis.js";

const API = "https://api.github.com";
const round = (n: number) => Number(n.toFixed(3));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const FILES = 60;
const LINES = 50; // changed lines per file: 60 × 50 = 3,000
const CONTEXT = 20; // unchanged lines at the top of each file

/** One file's text at a head: `CONTEXT` lines, then `LINES` added ones; `shift` blank lines pushed in above, `gone` lines rewritten. */
function fileText(f: number, shift = 0, gone: ReadonlySet<number> = new Set()): string[] {
  const lines = Array.from({ length: CONTEXT }, (_, i) => `// ${f}: context line ${i}`);
  for (let i = 0; i < shift; i++) lines.push(`// moved down ${i}`);
  for (let j = 0; j < LINES; j++) lines.push(gone.has(j) ? `  const v${f}_${j} = safeCompute(${f}, ${j}); // fixed` : `  const v${f}_${j} = compute(${f}, ${j}, input[${j}]);`);
  return lines;
}

/** GitHub's patch for a file whose added part starts after the context (and the shifted lines, which are added too). */
function patchOf(f: number, shift = 0, gone: ReadonlySet<number> = new Set()): string {
  const text = fileText(f, shift, gone);
  const added = text.slice(CONTEXT);
  const ctx = text.slice(CONTEXT - 3, CONTEXT);
  return [`@@ -${CONTEXT - 2},3 +${CONTEXT - 2},${3 + added.length} @@`, ...ctx.map((l) => ` ${l}`), ...added.map((l) => `+${l}`)].join("\n");
}

interface Head {
  sha: string;
  shift: Map<number, number>;
  gone: Map<number, Set<number>>;
}

/** 20 findings on 20 files: line `CONTEXT + 1 + j` of file f (the j-th added line). */
const FINDINGS: Array<{ f: number; j: number }> = Array.from({ length: 20 }, (_, k) => ({ f: k * 3, j: 5 + k }));

function finding(f: number, line: number, k: number): NewFinding {
  return {
    path: `src/mod${f}.ts`,
    line,
    side: "RIGHT",
    severity: k % 3 === 0 ? "high" : "medium",
    title: `unchecked input ${k}`,
    body: `input[${k}] may be undefined here; check it before use.`,
    rule: "unchecked-input",
  };
}

/** Every GitHub call a pass makes, answered from the head's files; counts them. */
function mockGitHub(head: Head, counter: { calls: number }): void {
  const count = () => void (counter.calls += 1);
  const posted: Array<{ comments: Array<{ body: string }> }> = [];
  const api = nock(API).persist();
  api.get("/repos/o/r/pulls/3").reply(200, () => (count(), { state: "open", draft: false, user: { login: "alice" }, head: { sha: head.sha } }));
  api.post("/repos/o/r/check-runs").reply(201, () => (count(), { id: 9 }));
  api.patch("/repos/o/r/check-runs/9").reply(200, () => (count(), { id: 9 }));
  api
    .get("/repos/o/r/pulls/3/files")
    .query(true)
    .reply(200, () => {
      count();
      return Array.from({ length: FILES }, (_, f) => ({
        filename: `src/mod${f}.ts`,
        status: "modified",
        additions: LINES,
        deletions: 0,
        changes: LINES,
        patch: patchOf(f, head.shift.get(f), head.gone.get(f)),
      }));
    });
  api.post("/repos/o/r/pulls/3/reviews").reply(200, (_uri, body) => {
    count();
    posted.push(body as (typeof posted)[number]);
    return { id: 40 + posted.length };
  });
  api.put(/\/repos\/o\/r\/pulls\/3\/reviews\/\d+$/).reply(200, () => (count(), { id: 41 }));
  api
    .get(/\/repos\/o\/r\/pulls\/3\/reviews\/\d+\/comments/)
    .query(true)
    .reply(200, (uri) => {
      count();
      const review = Number(/reviews\/(\d+)\/comments/.exec(uri)![1]);
      return (posted[review - 41]?.comments ?? []).map((c, i) => ({ id: review * 1000 + i, body: c.body }));
    });
  api.post("/graphql").reply(200, (_uri, body) => {
    count();
    const { query } = body as { query: string };
    if (query.includes("resolveReviewThread")) return { data: { resolveReviewThread: { thread: { id: "t", isResolved: true } } } };
    const comments = (posted[0]?.comments ?? []).map((_, i) => 41_000 + i);
    return {
      data: {
        repository: {
          pullRequest: {
            reviewThreads: {
              pageInfo: { hasNextPage: false, endCursor: null },
              nodes: comments.map((id) => ({
                id: `thread-${id}`,
                isResolved: false,
                comments: { nodes: [{ databaseId: id, body: "", author: { login: "open-swe[bot]" }, reactions: { nodes: [] } }] },
              })),
            },
          },
        },
      },
    };
  });
}

function passInput(store: FindingsStore, head: Head, reviewer: ReviewPassInput["runReviewer"]): ReviewPassInput {
  return {
    octokit: new ProbotOctokit({ auth: { token: "bench" }, retry: { enabled: false }, throttle: { enabled: false } }),
    pr: { owner: "o", repo: "r", pull_number: 3 },
    store,
    verdictAuthorized: false,
    botLogins: ["open-swe[bot]"],
    severityFloor: "low",
    ignoredPaths: [],
    tokenBudget: 200_000,
    readFiles: async (paths) =>
      new Map(
        paths.map((p) => {
          const f = Number(/mod(\d+)/.exec(p)![1]);
          return [p, fileText(f, head.shift.get(f), head.gone.get(f)).join("\n")];
        }),
      ),
    runReviewer: reviewer,
  };
}

/** The same number of GitHub calls, made bare with the same client: what a pass costs before it does any work of its own. */
async function bareCalls(n: number): Promise<number> {
  const octokit = new ProbotOctokit({ auth: { token: "bench" }, retry: { enabled: false }, throttle: { enabled: false } });
  nock(API).get("/repos/o/r").times(n).reply(200, { id: 1 });
  const t = performance.now();
  for (let i = 0; i < n; i++) await octokit.rest.repos.get({ owner: "o", repo: "r" });
  return performance.now() - t;
}

/**
 * `npm run bench:review`: a 60-file, 3,000-changed-line PR, a scripted reviewer filing 20 findings (no
 * model), GitHub nock'd. The host-side time of a first pass (files fetched and parsed, budget,
 * reconcile, publish with comment ids learned) and of a re-push pass where 5 flagged lines were
 * rewritten (resolved: threads resolved) and 5 moved down (the findings follow them); each the median
 * of `--repeat` passes on fresh state, against the bare GitHub calls it makes.
 */
export async function main(argv: string[]): Promise<void> {
  const repeatAt = argv.indexOf("--repeat");
  const repeats = repeatAt >= 0 ? Number(argv[repeatAt + 1]) : 5;
  const dir = mkdtempSync(join(tmpdir(), "open-swe-bench-review-"));
  const server = await startEmbeddedRedis(dir, createLogger("silent"));
  const redis = connectRedis(server.url);
  nock.disableNetConnect();
  nock.enableNetConnect((h) => h.startsWith("127.0.0.1"));
  const first: number[] = [];
  const second: number[] = [];
  const baseline: number[] = [];
  let firstCalls = 0;
  let secondCalls = 0;
  let outcome = "";
  try {
    for (let r = 0; r <= repeats; r++) {
      const store = new FindingsStore(redis, `bench-review-${r}:`);
      const head: Head = { sha: "a".repeat(40), shift: new Map(), gone: new Map() };
      const counter = { calls: 0 };
      mockGitHub(head, counter);
      let t = performance.now();
      const one = await runReviewPass(
        passInput(store, head, async ({ session }) => {
          for (const [k, { f, j }] of FINDINGS.entries()) {
            const res = session.fileFinding(finding(f, CONTEXT + 1 + j, k));
            if (!res.accepted) throw new Error(`finding ${k} refused: ${res.reason}`);
          }
          await session.publish({ summary: "Twenty findings.", verdict: null });
        }),
      );
      const firstMs = performance.now() - t;
      if (one.status !== "published" || one.publish.commentsPosted !== 20) throw new Error(`first pass: ${JSON.stringify(one)}`);
      const callsOne = counter.calls;

      // The re-push: findings 0–4's lines rewritten (fixed), findings 5–9's files gain 7 lines above them.
      head.sha = "b".repeat(40);
      for (const { f, j } of FINDINGS.slice(0, 5)) head.gone.set(f, new Set([j]));
      for (const { f } of FINDINGS.slice(5, 10)) head.shift.set(f, 7);
      t = performance.now();
      const two = await runReviewPass(
        passInput(store, head, async ({ session }) => {
          // The reviewer looks again and re-files what it still sees (the moved and untouched ones).
          for (const [k, { f, j }] of FINDINGS.entries()) {
            if (k < 5) continue;
            session.fileFinding(finding(f, CONTEXT + 1 + j + (k < 10 ? 7 : 0), k));
          }
          await session.publish({ summary: "Fifteen still stand.", verdict: null });
        }),
      );
      const secondMs = performance.now() - t;
      if (two.status !== "published") throw new Error(`second pass: ${JSON.stringify(two)}`);
      const stored = await store.list({ owner: "o", repo: "r", pull_number: 3 });
      const resolved = stored.filter((f) => f.status === "resolved").length;
      const moved = FINDINGS.slice(5, 10).filter(({ f, j }) => stored.some((s) => s.path === `src/mod${f}.ts` && s.status === "open" && s.line === CONTEXT + 1 + j + 7)).length;
      if (resolved !== 5 || moved !== 5) throw new Error(`re-push pass: ${resolved} resolved and ${moved} moved, expected 5 and 5`);
      outcome = `${resolved} resolved (${two.publish.threadsResolved} threads resolved), ${moved} moved, ${stored.filter((f) => f.status === "open").length} open, ${two.publish.commentsPosted} new comments`;
      const callsTwo = counter.calls - callsOne;
      nock.cleanAll();
      const bare = await bareCalls(callsOne);
      if (r === 0) continue; // warm-up: module loading and JIT
      first.push(firstMs);
      second.push(secondMs);
      baseline.push(bare);
      firstCalls = callsOne;
      secondCalls = callsTwo;
    }
    const figures = {
      bench: "review",
      files: FILES,
      changedLines: FILES * LINES,
      findings: FINDINGS.length,
      repeats,
      firstPassMs: round(median(first)),
      firstPassRangeMs: [round(Math.min(...first)), round(Math.max(...first))],
      firstPassGitHubCalls: firstCalls,
      rePushPassMs: round(median(second)),
      rePushPassRangeMs: [round(Math.min(...second)), round(Math.max(...second))],
      rePushPassGitHubCalls: secondCalls,
      bareGitHubCallsMs: round(median(baseline)),
      firstPassVsBareCalls: round(median(first) / median(baseline)),
      rePushOutcome: outcome,
    };
    console.log(
      `first pass: ${figures.firstPassMs} ms (range ${figures.firstPassRangeMs.join("–")}), ${firstCalls} GitHub calls; the same number of bare calls ${figures.bareGitHubCallsMs} ms (ratio ${figures.firstPassVsBareCalls})`,
    );
    console.log(`re-push pass: ${figures.rePushPassMs} ms (range ${figures.rePushPassRangeMs.join("–")}), ${secondCalls} GitHub calls: ${outcome}`);
    console.log(JSON.stringify(figures));
  } finally {
    nock.cleanAll();
    nock.enableNetConnect();
    await redis.quit();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
