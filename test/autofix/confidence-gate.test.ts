import pino from "pino";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { describe, expect, it } from "vitest";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AutofixLedger } from "../../src/autofix/autofix-ledger.js";
import { confidenceGate, MAX_RERUNS_PER_HEAD } from "../../src/autofix/confidence-gate.js";
import { parseReplayScript, ReplayChatModel } from "../../src/agent/model/replay-chat-model.js";
import type { AgentJob } from "../../src/queue/schemas.js";
import { SideEffectLedger } from "../../src/store/side-effects.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const API = "https://api.github.com";
const HEAD = "c".repeat(40);
const PR = "octo/hello#12";

/** The confidence gate against real Redis, nock'd GitHub and a scripted model (one turn = its one call). */
describe("confidence gate", () => {
  let n = 0;
  function setup(answer: string | Error) {
    const prefix = uniquePrefix();
    const redis = testRedis();
    const model =
      answer instanceof Error
        ? (Object.assign(Object.create(ReplayChatModel.prototype), { invoke: async () => Promise.reject(answer) }) as BaseChatModel)
        : (new ReplayChatModel(parseReplayScript([{ text: answer }], "gate")) as BaseChatModel);
    const data = {
      installationId: 1,
      owner: "octo",
      repo: "hello",
      number: 12,
      isPullRequest: true,
      threadId: "t",
      trigger: "ci_fix",
      requester: { login: "dana", id: 7 },
      text: "CI failed on pull request #12. Failing checks:\n- test\n```\nError: connect ETIMEDOUT 140.82.112.3:443\n```",
      deliveryId: `d${n}`,
      autofixHead: HEAD,
    } as AgentJob & { autofixHead: string; number: number };
    const ledger = new AutofixLedger(redis, prefix);
    const deps = {
      data,
      octokit: new ProbotOctokit({ auth: { token: "t" }, throttle: { enabled: false }, retry: { enabled: false } }),
      model,
      ledger,
      effects: new SideEffectLedger(redis, prefix),
      jobId: `job-${n++}`,
      ownSlug: "open-swe",
      log: pino({ level: "silent" }),
      signal: new AbortController().signal,
      lastAttempt: true,
    };
    return { deps, ledger };
  }
  const redCi = (checks: { id: number; name: string }[]) => {
    nock(API)
      .get(`/repos/octo/hello/commits/${HEAD}/check-runs`)
      .query(true)
      .reply(200, {
        total_count: checks.length,
        check_runs: checks.map((c) => ({ ...c, status: "completed", conclusion: "failure", html_url: `https://github.com/octo/hello/runs/${c.id}`, app: { slug: "github-actions" } })),
      });
    nock(API).get(`/repos/octo/hello/commits/${HEAD}/status`).query(true).reply(200, { state: "failure", statuses: [] });
  };

  it("fix: nothing on GitHub, the run goes on, the classification is the result", async () => {
    const { deps } = setup('{"classification":"fix","reason":"a failing assertion","evidence":"expected 3, got -1"}');
    const { result } = await confidenceGate(deps);
    expect(result).toEqual({ classification: "fix", reason: "a failing assertion", evidence: "expected 3, got -1" });
  });

  it("flaky: re-runs only the failed jobs of each run once, and gives the head's attempt back", async () => {
    const { deps, ledger } = setup('{"classification":"flaky","reason":"a network timeout","evidence":"ETIMEDOUT"}');
    await ledger.claim(PR, { fingerprint: `${HEAD}:e2e,test`, headSha: HEAD, maxAttempts: 3, ci: true, counts: true });
    redCi([
      { id: 81, name: "test" },
      { id: 82, name: "e2e" },
    ]);
    nock(API).get("/repos/octo/hello/actions/jobs/81").reply(200, { id: 81, run_id: 9001 });
    nock(API).get("/repos/octo/hello/actions/jobs/82").reply(200, { id: 82, run_id: 9001 });
    const rerun = nock(API).post("/repos/octo/hello/actions/runs/9001/rerun-failed-jobs").once().reply(201, {});
    const { result } = await confidenceGate(deps);
    expect(result).toMatchObject({ classification: "flaky", rerunRuns: [9001], rerun: 1 });
    expect(rerun.isDone()).toBe(true);
    expect(await ledger.attempts(PR, HEAD)).toEqual({ total: 0, onHead: 0 });
    expect(await ledger.handled(PR)).toEqual([]);
    // The same job retried (a worker died after the re-run): nothing again, same answer.
    expect((await confidenceGate(deps)).result).toMatchObject({ classification: "flaky", rerun: 1 });
  });

  it(`flaky past ${MAX_RERUNS_PER_HEAD} re-runs on the head: no change, one comment saying a human is needed`, async () => {
    const { deps, ledger } = setup('{"classification":"flaky","reason":"the runner died","evidence":"The runner has received a shutdown signal"}');
    for (let i = 0; i < MAX_RERUNS_PER_HEAD; i++) expect(await ledger.claimRerun(PR, HEAD, MAX_RERUNS_PER_HEAD)).toBe(i + 1);
    const comment = nock(API)
      .post("/repos/octo/hello/issues/12/comments", (b: { body: string }) =>
        /changed nothing, because it looks flaky \(the runner died\), but the failed jobs were already re-run 3 times on this commit; a human is needed/.test(b.body),
      )
      .reply(201, { id: 1 });
    const { result } = await confidenceGate(deps);
    expect(result.classification).toBe("no_change");
    expect(comment.isDone()).toBe(true);
    expect(await ledger.reruns(PR, HEAD)).toBe(MAX_RERUNS_PER_HEAD);
  });

  it("flaky, but no failing check is an Actions job: no change, a comment, the re-run not spent", async () => {
    const { deps, ledger } = setup('{"classification":"flaky","reason":"timeout","evidence":""}');
    redCi([{ id: 83, name: "external-ci" }]);
    nock(API).get("/repos/octo/hello/actions/jobs/83").reply(404, { message: "Not Found" });
    const comment = nock(API)
      .post("/repos/octo/hello/issues/12/comments", (b: { body: string }) => /re-run them by hand/.test(b.body))
      .reply(201, { id: 2 });
    expect((await confidenceGate(deps)).result.classification).toBe("no_change");
    expect(comment.isDone()).toBe(true);
    expect(await ledger.reruns(PR, HEAD)).toBe(0);
  });

  it("flaky, but GitHub refuses the re-run (no Actions write permission): no change, a comment that says why, the re-run not spent", async () => {
    const { deps, ledger } = setup('{"classification":"flaky","reason":"a network timeout","evidence":"ETIMEDOUT"}');
    redCi([{ id: 84, name: "test" }]);
    nock(API).get("/repos/octo/hello/actions/jobs/84").reply(200, { id: 84, run_id: 9002 });
    nock(API).post("/repos/octo/hello/actions/runs/9002/rerun-failed-jobs").reply(403, { message: "Resource not accessible by integration" });
    const comment = nock(API)
      .post("/repos/octo/hello/issues/12/comments", (b: { body: string }) =>
        /GitHub refused to re-run the failed jobs: this installation has not granted the app the Actions write permission/.test(b.body),
      )
      .reply(201, { id: 3 });
    expect((await confidenceGate(deps)).result.classification).toBe("no_change");
    expect(comment.isDone()).toBe(true);
    expect(await ledger.reruns(PR, HEAD)).toBe(0);
  });

  it("no_change: one comment with the reason and the evidence (mentions defused), posted once across retries", async () => {
    const { deps } = setup('{"classification":"no_change","reason":"the NPM_TOKEN secret is missing; ask @octo-admin","evidence":"npm ERR! code E401 ```"}');
    const comment = nock(API)
      .post(
        "/repos/octo/hello/issues/12/comments",
        (b: { body: string }) => b.body.includes("because the NPM_TOKEN secret is missing; ask @\u200bocto-admin.") && b.body.includes("npm ERR! code E401 ʼʼʼ") && !b.body.includes("```\n```"),
      )
      .once()
      .reply(201, { id: 3 });
    expect((await confidenceGate(deps)).result).toMatchObject({ classification: "no_change", evidence: "npm ERR! code E401 ```" });
    await confidenceGate(deps);
    expect(comment.isDone()).toBe(true);
  });

  it("a model call that fails before the job's last attempt fails the attempt (the job is retried): nothing decided, nothing said", async () => {
    const { deps } = setup(new Error("529 overloaded"));
    await expect(confidenceGate({ ...deps, lastAttempt: false })).rejects.toThrow("529 overloaded");
    // The retry classifies afresh: nothing was remembered for this job.
    const { deps: again } = setup('{"classification":"fix","reason":"a type error","evidence":"TS2345"}');
    expect((await confidenceGate({ ...again, jobId: deps.jobId, effects: deps.effects })).result.classification).toBe("fix");
  });

  it.each<[string, string | Error, RegExp]>([
    ["prose, no JSON", "Looks flaky to me, re-run it.", /unusable: the answer holds no JSON object/],
    ["an unknown class", '{"classification":"retry","reason":"x"}', /unusable: classification/],
    [
      "the model call failing on the job's last attempt",
      new Error("overloaded"),
      /the model that classifies CI failures could not be reached \(an error on the model provider's side, not in this pull request\)/,
    ],
  ])("a malformed answer (%s) fails closed: no change, and a comment saying so", async (_n, answer, reason) => {
    const { deps } = setup(answer);
    const comment = nock(API)
      .post("/repos/octo/hello/issues/12/comments", (b: { body: string }) => reason.test(b.body) && /could not be classified/.test(b.body))
      .reply(201, { id: 4 });
    const { result } = await confidenceGate(deps);
    expect(result.classification).toBe("no_change");
    expect(result.malformed).toBeTruthy();
    expect(comment.isDone()).toBe(true);
  });
});
