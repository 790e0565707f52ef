import { describe, expect, it } from "vitest";
import { parseRepoConfig, RepoConfigError } from "../../src/config/repo-config.js";
import { decideAutoReview, type AutoReviewInput } from "../../src/github/auto-review-decision.js";
import { isFailingConclusion, isFailingStatus } from "../../src/github/ci-failure.js";
import { isBotSender } from "../../src/github/is-bot.js";
import { planCommentJob, type CommentInput } from "../../src/github/plan-comment.js";
import { deliveryJobId, jobId } from "../../src/queue/job-ids.js";
import { threadId } from "../../src/shared/thread-id.js";

const base: Omit<CommentInput, "command"> = {
  installationId: 1,
  owner: "Octo",
  repo: "Hello",
  deliveryId: "abc",
  number: 4,
  isPullRequest: true,
  issueId: 444,
  author: { login: "alice", id: 9 },
  comment: { kind: "issue_comment", id: 77 },
};

describe("planCommentJob", () => {
  const table: [string, CommentInput, { queue: string; data: Record<string, unknown> }][] = [
    [
      "task on a PR → agent on the PR thread",
      { ...base, command: { kind: "task", text: "fix" } },
      { queue: "agent", data: { threadId: threadId({ kind: "pr", owner: "octo", repo: "hello", number: 4 }), text: "fix", isPullRequest: true } },
    ],
    [
      "task on our own PR → agent on the thread that opened it",
      { ...base, originThreadId: "5f0c6a52-8a1e-4c1b-9a57-3f1f5e7d2b11", command: { kind: "task", text: "fix" } },
      { queue: "agent", data: { threadId: "5f0c6a52-8a1e-4c1b-9a57-3f1f5e7d2b11", number: 4, isPullRequest: true } },
    ],
    ["task without --verdict → no verdict grant", { ...base, command: { kind: "task", text: "fix" } }, { queue: "agent", data: { verdictAuthorized: false } }],
    ["task with --verdict → the grant, typed", { ...base, command: { kind: "task", text: "fix --verdict", verdictRequested: true } }, { queue: "agent", data: { verdictAuthorized: true } }],
    ["task with --model → the thread's model", { ...base, command: { kind: "task", text: "fix", model: "claude-x" } }, { queue: "agent", data: { model: "claude-x" } }],
    [
      "task on an issue → agent on the issue thread",
      { ...base, isPullRequest: false, command: { kind: "task", text: "fix" } },
      { queue: "agent", data: { threadId: threadId({ kind: "issue", issueId: 444 }), isPullRequest: false } },
    ],
    [
      "review → review on the reviewer thread",
      { ...base, command: { kind: "review", instructions: "auth", verdictRequested: true } },
      { queue: "review", data: { threadId: threadId({ kind: "reviewer", owner: "octo", repo: "hello", number: 4 }), trigger: "mention", verdictRequested: true, instructions: "auth" } },
    ],
    ["review on an issue → help", { ...base, isPullRequest: false, command: { kind: "review", instructions: "", verdictRequested: false } }, { queue: "command", data: { command: "help" } }],
    ["autofix on a PR → command", { ...base, command: { kind: "autofix", enabled: false } }, { queue: "command", data: { command: "autofix", enabled: false } }],
    ["bare autofix on a PR → its status", { ...base, command: { kind: "autofix_status" } }, { queue: "command", data: { command: "autofix_status" } }],
    ["bare autofix on an issue → help", { ...base, isPullRequest: false, command: { kind: "autofix_status" } }, { queue: "command", data: { command: "help" } }],
    ["fix ci on a PR → command", { ...base, command: { kind: "fix_ci" } }, { queue: "command", data: { command: "fix_ci" } }],
    [
      "fix ci --allow-test-config → the command carries the typed flag",
      { ...base, command: { kind: "fix_ci", allowTestConfig: true } },
      { queue: "command", data: { command: "fix_ci", allowTestConfig: true } },
    ],
    [
      "fix ci on an issue → help",
      { ...base, isPullRequest: false, command: { kind: "fix_ci" } },
      { queue: "command", data: { command: "help", reason: "`fix ci` works on pull requests; this is an issue." } },
    ],
    ["autofix on an issue → help", { ...base, isPullRequest: false, command: { kind: "autofix", enabled: true } }, { queue: "command", data: { command: "help" } }],
    ["help → command", { ...base, command: { kind: "help", reason: "" } }, { queue: "command", data: { command: "help" } }],
    [
      "approve on a PR → approval command, the commenter as decider",
      { ...base, command: { kind: "approval", decision: "approve", id: "1a2b3c4d" } },
      { queue: "command", data: { command: "approval", decision: "approve", approvalId: "1a2b3c4d", requester: { login: "alice", id: 9 } } },
    ],
    [
      "deny with a reason on an issue → approval command",
      { ...base, isPullRequest: false, command: { kind: "approval", decision: "deny", id: "1a2b3c4d", reason: "no" } },
      { queue: "command", data: { command: "approval", decision: "deny", reason: "no" } },
    ],
  ];
  it.each(table)("%s", (_name, input, want) => {
    const plan = planCommentJob(input);
    expect(plan.queue).toBe(want.queue);
    expect(plan.jobId).toBe(deliveryJobId("abc"));
    expect(plan.data).toMatchObject(want.data);
  });
});

describe("job ids", () => {
  it("never contain ':' and never are integers", () => {
    expect(deliveryJobId("12:34")).toBe("j__gh__12_34");
    expect(jobId(5)).toBe("j__5");
  });
});

describe("decideAutoReview", () => {
  const cfg = parseRepoConfig({});
  const input: AutoReviewInput = { trigger: "auto", draft: false, state: "open", repoConfig: cfg, authorOptedIn: true, authorIsBot: false, lastReviewedHead: null, headSha: "h1" };
  const table: [string, Partial<AutoReviewInput>, boolean | string, boolean?][] = [
    ["plain open PR", {}, true],
    ["mention always", { trigger: "mention", draft: true, authorOptedIn: false }, true],
    ["closed", { state: "closed" }, "the pull request is closed", false],
    ["repo config off", { repoConfig: parseRepoConfig({ review: { auto: false } }) }, "auto-review is off in the repo config", false],
    ["draft skipped", { draft: true }, "draft pull requests are not auto-reviewed", false],
    ["draft included", { draft: true, repoConfig: parseRepoConfig({ review: { include_drafts: true } }) }, true],
    ["author opted out", { authorOptedIn: false }, "the author opted out of auto-review", false],
    ["bot PR", { authorIsBot: true }, "pull requests by bots are not auto-reviewed", false],
    ["same head already reviewed", { trigger: "synchronize", lastReviewedHead: "h1" }, "this head commit was already reviewed", true],
    ["new head after review", { trigger: "synchronize", lastReviewedHead: "h0" }, true],
  ];
  it.each(table)("%s", (_n, patch, want, duplicate) => {
    const d = decideAutoReview({ ...input, ...patch });
    expect(d.review ? true : d.reason).toBe(want);
    if (!d.review) expect(d.duplicate).toBe(duplicate);
  });
});

describe("repo config", () => {
  it("reads per-tool policies under agent.tools", () => {
    expect(parseRepoConfig({ agent: { tools: { execute: "ask", "mcp__docs__*": "deny" } } }).agent.tools).toEqual({ execute: "ask", "mcp__docs__*": "deny" });
    expect(parseRepoConfig({}).agent.tools).toEqual({});
  });
  it("has defaults for an empty or missing file", () => {
    expect(parseRepoConfig(null)).toMatchObject({ review: { auto: true, include_drafts: false, ignored_paths: [] }, autofix: { default: false } });
  });
  it.each([
    [{ review: { auto: "yes" } }, /review\.auto/],
    [{ reveiw: {} }, /reveiw/],
    [{ review: { ignored_paths: "dist/**" } }, /review\.ignored_paths/],
    [{ autofix: { default: true, loops: 9 } }, /loops/],
    [{ agent: { tools: { execute: "sometimes" } } }, /agent\.tools\.execute/],
    [{ agent: { tools: { "rm -rf": "deny" } } }, /agent\.tools/],
    [{ agent: { mcp_servers: { docs: { url: "https://x", colour: "blue" } } } }, /agent\.mcp_servers\.docs/],
  ])("%j is rejected with a path", (raw, re) => {
    const err = (() => {
      try {
        parseRepoConfig(raw);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(RepoConfigError);
    expect((err as RepoConfigError).details).toMatch(re);
  });
});

describe("small predicates", () => {
  it.each([
    ["failure", true],
    ["timed_out", true],
    ["cancelled", false],
    ["success", false],
    [null, false],
  ] as const)("conclusion %s → %s", (c, want) => {
    expect(isFailingConclusion(c)).toBe(want);
  });
  it.each([
    ["error", true],
    ["failure", true],
    ["pending", false],
    ["success", false],
  ] as const)("status %s → %s", (s, want) => {
    expect(isFailingStatus(s)).toBe(want);
  });
  it.each([
    [{ login: "dependabot[bot]", type: "Bot" }, true],
    [{ login: "open-swe[bot]" }, true],
    [{ login: "ci-robot", type: "User" }, true],
    [{ login: "alice", type: "User" }, false],
    [null, true],
  ] as const)("bot %j → %s", (s, want) => {
    expect(isBotSender(s, ["open-swe[bot]", "ci-robot"])).toBe(want);
  });
});
