import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { threadId } from "../../src/shared/thread-id.js";
import { mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { jobAppears, waitForJob } from "../helpers/jobs.js";
import { API, BASE, THREAD, ciFacts, head, neutralCheck, nextInstallation, pull, recordOurPr, startAutofixProcess } from "../integration/ci-autofix-fixture.js";

// Issue #42, finding 1. The agent's branch names (`open-swe/<thread>-<slug>`) are public. An outsider opens a PR from
// a fork whose head branch has the name of a writer's thread branch: nothing of it may reach her thread — not its red
// CI (a fix run acting for her, her sandbox, a commit on her branch), not a writer's `@open-swe` on it.
const BASE_REPO = { id: 1, name: "hello", full_name: "octo/hello", url: "https://api.github.com/repos/octo/hello" };
const FORK = { id: 666, name: "hello", full_name: "mallory/hello", url: "https://api.github.com/repos/mallory/hello" };
const repository = { name: "hello", full_name: "octo/hello", owner: { login: "octo" } };
const WRITER = { login: "alice", id: 11, type: "User" };

/** The fork's PR as GitHub answers for it: opened by mallory, its head in her fork, under the writer's branch name. */
const forkPull = (number: number, sha: string, branch: string) => ({
  number,
  state: "open",
  body: "Small fix.",
  user: { login: "mallory" },
  head: { sha, ref: branch, repo: FORK },
  base: { sha: BASE, ref: "main", repo: BASE_REPO },
});

/** A red `check_run` from GitHub Actions on the fork PR's head: its `pull_requests[]` entry names the fork as head. */
function forkCheckRun(installation: number, number: number, sha: string, branch: string) {
  return {
    action: "completed",
    installation: { id: installation },
    repository,
    sender: { login: "github-actions[bot]", id: 41898282, type: "Bot" },
    check_run: {
      id: 55,
      name: "lint",
      status: "completed",
      conclusion: "failure",
      head_sha: sha,
      html_url: "https://github.com/octo/hello/runs/55",
      details_url: "https://github.com/octo/hello/actions/runs/9/job/55",
      app: { slug: "github-actions", name: "GitHub Actions" },
      check_suite: { head_branch: branch },
      pull_requests: [
        { id: 9000 + number, number, url: `https://api.github.com/repos/octo/hello/pulls/${number}`, head: { ref: branch, sha, repo: FORK }, base: { ref: "main", sha: BASE, repo: BASE_REPO } },
      ],
    },
  };
}

/** A red `workflow_run` for the fork's `pull_request` run: no PR listed (GitHub lists none for a fork), the fork as `head_repository`. */
function forkWorkflowRun(installation: number, sha: string, branch: string) {
  return {
    action: "completed",
    installation: { id: installation },
    repository,
    sender: { login: "mallory", id: 666, type: "User" },
    workflow: { id: 3, name: "CI" },
    workflow_run: {
      id: 9,
      name: "CI",
      event: "pull_request",
      status: "completed",
      conclusion: "failure",
      head_sha: sha,
      head_branch: branch,
      html_url: "https://github.com/octo/hello/actions/runs/9",
      pull_requests: [],
      head_repository: FORK,
      repository: BASE_REPO,
    },
  };
}

/** A writer's review asking for changes on the fork PR: review feedback, the CI-fix path of a person. */
function forkReview(installation: number, number: number, sha: string, branch: string) {
  return {
    action: "submitted",
    installation: { id: installation },
    repository,
    sender: WRITER,
    review: { id: 4400 + number, state: "changes_requested", body: "Please rename foo.", user: WRITER, html_url: `https://github.com/octo/hello/pull/${number}#r1` },
    pull_request: { number, id: 5000 + number, body: "Small fix.", user: { login: "mallory", id: 666 }, head: { ref: branch, sha, repo: FORK }, base: { ref: "main", sha: BASE, repo: BASE_REPO } },
  };
}

describe("a fork PR under the name of a writer's thread branch (issue #42)", () => {
  let proc: RunningProcess;
  let prefix: string;
  beforeAll(async () => {
    ({ proc, prefix } = await startAutofixProcess());
  });
  afterAll(async () => proc?.stop());

  type Delivery = (installation: number, number: number, sha: string, branch: string) => { event: string; payload: unknown };
  const CI_PATHS: [string, number, "pull" | "commit", Delivery][] = [
    ["check_run (the fork PR in pull_requests[])", 61, "pull", (i, n, sha, b) => ({ event: "check_run", payload: forkCheckRun(i, n, sha, b) })],
    ["workflow_run (no PR listed: found through the commit)", 63, "commit", (i, _n, sha, b) => ({ event: "workflow_run", payload: forkWorkflowRun(i, sha, b) })],
    ["review asking for changes, by a writer", 65, "pull", (i, n, sha, b) => ({ event: "pull_request_review", payload: forkReview(i, n, sha, b) })],
  ];
  it.each(CI_PATHS)("its red %s queues no fix run on her thread: skipped as a fork's head, said in the job's outcome", async (_kind, number, lookup, delivery) => {
    // Alice's thread opened PR #(n-1) from open-swe/<n-1>; mallory's fork PR #n uses that branch name.
    await recordOurPr(prefix, number - 1);
    const branch = `open-swe/${number - 1}`;
    const sha = head();
    const installation = nextInstallation();
    mockInstallationToken(installation);
    if (lookup === "pull")
      nock(API)
        .get(`/repos/octo/hello/pulls/${number}`)
        .reply(200, forkPull(number, sha, branch));
    else
      nock(API)
        .get(`/repos/octo/hello/commits/${sha}/pulls`)
        .reply(200, [forkPull(number, sha, branch)]);
    const agents = await proc.queues.queues.agent.count();
    const res = await sendWebhook(proc.port!, delivery(installation, number, sha, branch));
    expect(res.status).toBe(200);
    const done = await waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId));
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "skip", reason: "fork_head", pr: `octo/hello#${number}` } });
    expect(done.returnvalue).not.toHaveProperty("threadId", THREAD);
    expect(await proc.queues.queues.agent.count()).toBe(agents);
  });

  it("a writer's `@open-swe` on the fork PR starts the PR's own thread, not hers", async () => {
    await recordOurPr(prefix, 70);
    const reviewComment = {
      action: "created",
      installation: { id: 1 },
      repository,
      sender: WRITER,
      pull_request: {
        number: 71,
        id: 5071,
        body: "Small fix.",
        user: { login: "mallory", id: 666 },
        head: { ref: "open-swe/70", sha: head(), repo: FORK },
        base: { ref: "main", sha: BASE, repo: BASE_REPO },
      },
      comment: { id: 7071, body: "@open-swe rename this", user: WRITER },
    };
    const res = await sendWebhook(proc.port!, { event: "pull_request_review_comment", payload: reviewComment });
    expect(res.status).toBe(200);
    const job = await jobAppears(proc.queues.queues.agent, deliveryJobId(res.deliveryId));
    expect(job.data).toMatchObject({ number: 71, threadId: threadId({ kind: "pr", owner: "octo", repo: "hello", number: 71 }) });
    expect(job.data.threadId).not.toBe(THREAD);
  });

  it("a head commit whose author GitHub cannot name (author null: an email with no account) is a person's: autofix stands back", async () => {
    await recordOurPr(prefix, 80);
    const sha = head();
    const installation = nextInstallation();
    mockInstallationToken(installation);
    pull(80, sha);
    ciFacts(sha, { commitAuthor: null, logs: false });
    const check = neutralCheck(sha, "Autofix stands back");
    const payload = {
      action: "completed",
      installation: { id: installation },
      repository,
      sender: { login: "github-actions[bot]", id: 41898282, type: "Bot" },
      check_run: {
        id: 55,
        name: "lint",
        status: "completed",
        conclusion: "failure",
        head_sha: sha,
        html_url: "https://github.com/octo/hello/runs/55",
        app: { slug: "github-actions", name: "GitHub Actions" },
        check_suite: { head_branch: "open-swe/80" },
        pull_requests: [{ number: 80 }],
      },
    };
    const agents = await proc.queues.queues.agent.count();
    const res = await sendWebhook(proc.port!, { event: "check_run", payload });
    expect(await waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "skip", reason: "human_commit" } });
    expect(check.isDone()).toBe(true);
    expect(await proc.queues.queues.agent.count()).toBe(agents);
  });
});
