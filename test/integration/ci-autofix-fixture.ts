// The CI autofix tests' GitHub: a red check on a PR head, the PR, the CI facts the job reads, and one worker process
// per file with autofix on for octo/hello (the fix run's agent queue paused: the tests read what was enqueued).
import { testSigner } from "../helpers/job-signer.js";
import nock from "nock";
import type { RunningProcess } from "../../src/main.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { PrThreads } from "../../src/store/pr-threads.js";
import { nockJobLogs } from "../helpers/github-app.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

export const API = "https://api.github.com";
export const THREAD = "6f1c2f0e-8a55-4c1b-9d7e-3b2a1c0d9e8f";
export const BASE = "b".repeat(40);
/** The base repository as a PR's `head.repo` / `base.repo`: a PR the agent opened has its head here. */
export const HELLO = { id: 1, name: "hello", full_name: "octo/hello" };
let installation = 700;
let seq = 0;

export const nextInstallation = () => ++installation;

/** A red `check_run.completed` from GitHub Actions on a PR's head. */
export function checkRunEvent(number: number, headSha: string) {
  const installation = nextInstallation();
  return {
    installationId: installation,
    payload: {
      action: "completed",
      installation: { id: installation },
      repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
      sender: { login: "github-actions[bot]", id: 41898282, type: "Bot" },
      check_run: {
        id: 55,
        name: "lint",
        status: "completed",
        conclusion: "failure",
        head_sha: headSha,
        html_url: "https://github.com/octo/hello/runs/55",
        details_url: "https://github.com/octo/hello/actions/runs/9/job/55",
        app: { slug: "github-actions", name: "GitHub Actions" },
        check_suite: { head_branch: `open-swe/${number}` },
        pull_requests: [{ number }],
      },
    },
  };
}

/** The neutral "Open SWE Autofix" check a person-changeable skip leaves on the head. */
export const neutralCheck = (headSha: string, title: string) =>
  nock(API)
    .post(
      "/repos/octo/hello/check-runs",
      (b: { name: string; head_sha: string; conclusion: string; output: { title: string } }) =>
        b.name === "Open SWE Autofix" && b.head_sha === headSha && b.conclusion === "neutral" && b.output.title === title,
    )
    .reply(201, { id: 1 });

export const head = () => (++seq).toString(16).padStart(40, "c");
export const pull = (number: number, headSha: string, author = "open-swe[bot]") =>
  nock(API)
    .get(`/repos/octo/hello/pulls/${number}`)
    .reply(200, { number, state: "open", body: "Fixes it.", user: { login: author }, head: { sha: headSha, ref: `open-swe/${number}`, repo: HELLO }, base: { sha: BASE, repo: HELLO } });

/** Everything the job reads after the PR when it gets as far as the CI facts. */
export function ciFacts(headSha: string, o: { commitAuthor?: string | null; logs?: boolean; pending?: boolean; baseFailing?: boolean } = {}) {
  nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
  nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
  nock(API)
    .get(`/repos/octo/hello/commits/${headSha}/check-runs`)
    .query(true)
    .reply(200, {
      total_count: 3,
      check_runs: [
        { id: 55, name: "lint", status: "completed", conclusion: "failure", html_url: "https://github.com/octo/hello/runs/55", app: { slug: "github-actions" } },
        { id: 56, name: "test", status: "completed", conclusion: "success", html_url: "x", app: { slug: "github-actions" } },
        { id: 57, name: "Open SWE Review", status: "in_progress", conclusion: null, html_url: "x", app: { slug: "open-swe" } },
        ...(o.pending ? [{ id: 58, name: "e2e", status: "in_progress", conclusion: null, html_url: "x", app: { slug: "github-actions" } }] : []),
      ],
    });
  nock(API).get(`/repos/octo/hello/commits/${headSha}/status`).query(true).reply(200, { state: "success", statuses: [] });
  const baseRuns = o.baseFailing ? [{ id: 75, name: "lint", status: "completed", conclusion: "failure", html_url: "https://github.com/octo/hello/runs/75", app: { slug: "github-actions" } }] : [];
  if (!o.pending) nock(API).get(`/repos/octo/hello/commits/${BASE}/check-runs`).query(true).reply(200, { total_count: baseRuns.length, check_runs: baseRuns });
  if (!o.pending) nock(API).get(`/repos/octo/hello/commits/${BASE}/status`).query(true).reply(200, { state: "success", statuses: [] });
  nock(API)
    .get(`/repos/octo/hello/commits/${headSha}`)
    .reply(200, { sha: headSha, author: o.commitAuthor === null ? null : { login: o.commitAuthor ?? "open-swe[bot]" } });
  if (o.logs !== false) {
    nock(API)
      .get("/repos/octo/hello/check-runs/55")
      .reply(200, { id: 55, name: "lint", conclusion: "failure", app: { slug: "github-actions" }, output: {} });
    nockJobLogs(API, 55, "step 1\nsrc/a.ts:3:1 error no-unused-vars\n");
  }
}

/** A worker process (all roles) with autofix on for octo/hello and alice's profile, the agent queue paused. */
export async function startAutofixProcess(env: Record<string, string> = {}): Promise<{ proc: RunningProcess; prefix: string }> {
  const prefix = uniquePrefix();
  const proc = await startTestProcess("all", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, JOB_ATTEMPTS: "1", ...env });
  // The fix run itself is not under test here: its job stays queued, so the test reads what was enqueued.
  await proc.queues.queues.agent.pause();
  await new SettingsStore(testRedis(), prefix).enableRepo("octo/hello");
  await new SettingsStore(testRedis(), prefix).setProfile("alice", { autoFixCi: true });
  return { proc, prefix };
}

/** PR `number` was opened by the agent on THREAD for alice. */
export const recordOurPr = (prefix: string, number: number) =>
  new PrThreads(testRedis(), prefix, testSigner()).record({ owner: "octo", repo: "hello", number, branch: `open-swe/${number}` }, THREAD, { login: "alice", id: 11 });
