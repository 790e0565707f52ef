import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { shellQuote } from "../shared/shell-quote.js";
import type { Sandbox } from "../sandbox/types.js";
import { coAuthoredByTrailer } from "../sandbox/workspace/identity.js";
import type { AppConfig } from "../config/env.js";
import type { CommitCaps } from "../sandbox/workspace/commit-policy.js";
import { createPushBundle, PushRejectedError, verifyAndPushBundle } from "../sandbox/workspace/push.js";
import { checkTestInventory } from "../sandbox/workspace/test-inventory-check.js";
import type { GitHubRunContext } from "../github/tools/run-context.js";

export interface CommitAndPushDeps {
  sandbox: Sandbox;
  mirror: string;
  remoteUrl: string;
  /** The commit the remote branch is at (or the base commit for a new branch); advanced after each push. */
  expectedOld: () => string;
  onPushed: (sha: string) => Promise<void>;
  /** Minted per push, used only by the host git process; absent for local runs. */
  token?: () => Promise<string>;
  allowWorkflowChanges: boolean;
  /** `SANDBOX_MAX_BUNDLE_MB` in bytes: larger pushes are refused with a reason the model can act on. */
  maxBundleBytes: number;
  caps: CommitCaps;
  /** A CI fix run: the host refuses a push that skips or deletes tests (`test-weakening.ts`). */
  guardTests?: boolean;
  /** A merge-conflict fix: the base's own test changes are not the run's, and the PR's own files stay. */
  guardTestsAcceptFrom?: string;
  /** `@open-swe fix ci --allow-test-config`: a guarded run may change how tests are selected or run. */
  allowTestConfig?: boolean;
}

export const commitCaps = (config: AppConfig): CommitCaps => ({ maxFiles: config.env.AGENT_COMMIT_MAX_FILES, maxBytes: config.env.AGENT_COMMIT_MAX_MB * 1024 * 1024 });

const LISTED_FILES = 30;

/** The pushed files, capped: a big change is summarised, never printed whole into the model's context. */
export function listFiles(files: readonly string[]): string {
  const shown = files.slice(0, LISTED_FILES).join(", ");
  return files.length > LISTED_FILES ? `${shown}, … and ${files.length - LISTED_FILES} more` : shown;
}

/**
 * Commits inside the sandbox, then moves the work out as a git bundle that the host verifies and pushes:
 * the credential never enters the sandbox.
 */
export function commitAndPushTool(ctx: Pick<GitHubRunContext, "branch" | "requester" | "state">, deps: CommitAndPushDeps) {
  return tool(
    async ({ message }) => {
      const trailer = coAuthoredByTrailer({ name: ctx.requester.login, email: `${ctx.requester.id}+${ctx.requester.login}@users.noreply.github.com` });
      const commit = await deps.sandbox.exec(`git add -A && (git diff --cached --quiet || git commit -q -m ${shellQuote(message)} -m ${shellQuote(trailer)})`, { timeoutMs: 120_000 });
      if (commit.exitCode !== 0) return `Commit failed (exit ${commit.exitCode}): ${commit.stderr.trim() || commit.stdout.trim()}`;
      let bundle: Uint8Array | null;
      try {
        bundle = await createPushBundle(deps.sandbox, { branch: ctx.branch, since: deps.expectedOld(), maxBytes: deps.maxBundleBytes });
      } catch (err) {
        if (err instanceof PushRejectedError) return `Push refused (${err.reason}): ${err.message}`;
        throw err;
      }
      if (!bundle) return ctx.state.pushedSha ? `Nothing new to push; ${ctx.branch} is at ${ctx.state.pushedSha.slice(0, 12)}.` : "Nothing to commit or push: the working tree has no changes.";
      try {
        const pushed = await verifyAndPushBundle({
          mirror: deps.mirror,
          bundle,
          branch: ctx.branch,
          expectedOld: deps.expectedOld(),
          remoteUrl: deps.remoteUrl,
          ...(deps.token ? { token: await deps.token() } : {}),
          allowWorkflowChanges: deps.allowWorkflowChanges,
          maxBytes: deps.maxBundleBytes,
          caps: deps.caps,
          ...(deps.guardTests
            ? {
                guardTests: true,
                testInventory: (from: string, to: string) =>
                  checkTestInventory({ sandbox: deps.sandbox, mirror: deps.mirror, from, to, ...(deps.guardTestsAcceptFrom ? { acceptFrom: deps.guardTestsAcceptFrom } : {}) }),
              }
            : {}),
          ...(deps.guardTestsAcceptFrom ? { guardTestsAcceptFrom: deps.guardTestsAcceptFrom } : {}),
          ...(deps.allowTestConfig ? { allowTestConfig: true } : {}),
        });
        ctx.state.pushedSha = pushed.newSha;
        if (pushed.testNote) ctx.state.testNote = pushed.testNote;
        await deps.onPushed(pushed.newSha);
        return `Pushed ${pushed.commits} commit(s) to ${ctx.branch} (${pushed.newSha.slice(0, 12)}); ${pushed.changedFiles.length} file(s): ${listFiles(pushed.changedFiles)}`;
      } catch (err) {
        if (err instanceof PushRejectedError && err.reason === "not_the_task") {
          const since = deps.expectedOld();
          return [
            `Push refused: nothing was pushed, because ${err.message}.`,
            `To fix: \`git reset --soft ${since} && git reset -q\` (your files stay as they are, uncommitted), add the directories to .gitignore (e.g. \`echo node_modules/ >> .gitignore\`), then call commit_and_push again.`,
          ].join("\n");
        }
        if (err instanceof PushRejectedError && err.reason === "test_config") {
          return [
            `Push refused (test_config): nothing was pushed, because ${err.message}.`,
            `To fix: \`git reset --soft ${deps.expectedOld()} && git reset -q\` (your files stay as they are, uncommitted), restore the configuration (\`git checkout ${deps.expectedOld()} -- <those files>\`), fix the code instead, then call commit_and_push again.`,
          ].join("\n");
        }
        if (err instanceof PushRejectedError && err.reason === "deletes_pr_files") {
          return [
            `Push refused (deletes_pr_files): nothing was pushed, because ${err.message}.`,
            `To fix: \`git reset --soft ${deps.expectedOld()} && git reset -q\` (your files stay as they are, uncommitted), bring the files back (\`git checkout ${deps.expectedOld()} -- <those files>\`), resolve the conflict inside them, then call commit_and_push again.`,
          ].join("\n");
        }
        if (err instanceof PushRejectedError && err.reason === "weakens_tests") {
          return [
            `Push refused (weakens_tests): nothing was pushed, because ${err.message}.`,
            `To fix: \`git reset --soft ${deps.expectedOld()} && git reset -q\` (your files stay as they are, uncommitted), restore the tests (\`git checkout ${deps.expectedOld()} -- <test files>\`), fix the code instead, then call commit_and_push again.`,
          ].join("\n");
        }
        if (err instanceof PushRejectedError) return `Push refused (${err.reason}): ${err.message}`;
        throw err;
      }
    },
    {
      name: "commit_and_push",
      // No branch name here: a tool definition that differs per thread would miss the prompt cache (the task message names the branch).
      description: "Commit every change in the workspace with the message given and push the run's branch. The only way to push.",
      schema: z.object({ message: z.string().min(1).max(5_000).describe("Commit message: a short subject line, a blank line, then why") }),
    },
  );
}
