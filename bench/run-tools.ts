import type { StructuredToolInterface } from "@langchain/core/tools";
import { createFetchUrlTool } from "../src/agent/tools/fetch-url-tool.js";
import { createHttpRequestTool } from "../src/agent/tools/http-request-tool.js";
import { githubTools } from "../src/github/tools/index.js";
import type { GitHubRunContext } from "../src/github/tools/run-context.js";
import { commitAndPushTool } from "../src/runs/commit-and-push-tool.js";
import type { Sandbox } from "../src/sandbox/types.js";

/**
 * A run's own tools as `run-agent.ts` builds them, for one thread: the branch, thread, run and target
 * differ between two runs on one repository. Only the definitions are sent here; no tool is called.
 */
export function runTools(n: number): StructuredToolInterface[] {
  const ctx = {
    owner: "acme",
    repo: "widgets",
    threadId: `thread-${n}`,
    runId: `run-${n}`,
    target: { owner: "acme", repo: "widgets", number: n },
    requester: { login: `user${n}`, id: n },
    branch: `open-swe/thread-${n}-task-${n}`,
    baseBranch: "main",
    verdictAuthorized: false,
    state: { replied: false },
  } as unknown as GitHubRunContext;
  const push = commitAndPushTool(ctx, {
    sandbox: {} as Sandbox,
    mirror: `/mirror/${n}`,
    remoteUrl: "https://github.com/acme/widgets.git",
    expectedOld: () => "0".repeat(40),
    onPushed: async () => {},
    allowWorkflowChanges: false,
    maxBundleBytes: 1 << 20,
    caps: { maxFiles: 10, maxBytes: 1 << 20 },
  });
  return [push, ...(githubTools(ctx, { isPullRequest: false }) as StructuredToolInterface[]), createHttpRequestTool(), createFetchUrlTool()];
}
