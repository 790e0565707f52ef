import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { createAgentRuntime } from "../../src/runs/agent-runtime.js";
import { prepareReviewWorkspace } from "../../src/runs/review-workspace.js";
import { threadSandboxKey } from "../../src/sandbox/lifecycle.js";
import type { CreateSandboxOptions } from "../../src/sandbox/types.js";
import { testConfig } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";

function pushPullHead(bare: string, n: number, content: string): string {
  const work = mkdtempSync(join(tmpdir(), "open-swe-rw-"));
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: work, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@e", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@e" } });
  git("clone", "-q", bare, ".");
  writeFileSync(join(work, "app.js"), content);
  git("commit", "-q", "-am", "change");
  git("push", "-q", "-f", "origin", `HEAD:refs/pull/${n}/head`);
  return git("rev-parse", "HEAD").trim();
}

describe("review workspace", () => {
  it("checks out the PR head in a network-off sandbox, fresh for every pass, and tears it down", async () => {
    const remote = makeBareRemote("octo", "hello", { "app.js": "base\n" });
    const config = testConfig({ QUEUE_REDIS_URL: redisUrl(), DATA_DIR: mkdtempSync(join(tmpdir(), "open-swe-rw-data-")), SANDBOX_TYPE: "local", GIT_REMOTE_TEMPLATE: remote.template });
    const redis = testRedis();
    const prefix = uniquePrefix();
    const runtime = createAgentRuntime(config, redis, prefix);
    const created: CreateSandboxOptions[] = [];
    const provider = runtime.sandboxProvider;
    runtime.sandboxProvider = Object.assign(Object.create(provider) as typeof provider, {
      create: (o: CreateSandboxOptions = {}) => {
        created.push(o);
        return provider.create(o);
      },
    });
    const tokens: string[] = [];
    const github = {
      app: async () => ({}) as never,
      installation: async () => ({}) as never,
      repoScopedToken: async (_id: number, repo: string) => (tokens.push(repo), "t"),
      repoInstallation: async () => null,
    };
    const opts = (headSha: string) => ({
      target: { installationId: 1, owner: "octo", repo: "hello", number: 7, threadId: "11111111-2222-5333-8444-555555555555", headSha },
      github,
      config,
      runtime,
      redis,
      prefix,
      log: createLogger("silent"),
    });

    const head1 = pushPullHead(remote.bare, 7, "first\n");
    const ws1 = await prepareReviewWorkspace(opts(head1));
    expect(ws1.workspace.sha).toBe(head1);
    expect((await ws1.sandbox.exec("cat app.js")).stdout).toBe("first\n");
    expect(created).toEqual([expect.objectContaining({ network: false, labels: expect.objectContaining({ role: "reviewer" }) })]);
    expect(tokens).toEqual(["hello"]);
    // No network namespace but loopback: nothing leaves the sandbox.
    expect((await ws1.sandbox.exec("cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '")).stdout.trim()).toBe("lo");

    // A pass that crashed left its sandbox behind: the next pass still sees its own head.
    const head2 = pushPullHead(remote.bare, 7, "second\n");
    const ws2 = await prepareReviewWorkspace(opts(head2));
    expect(ws2.sandbox.id).not.toBe(ws1.sandbox.id);
    expect((await ws2.sandbox.exec("cat app.js")).stdout).toBe("second\n");
    await ws2.release();
    expect(await redis.get(threadSandboxKey(prefix, opts(head2).target.threadId))).toBeNull();

    // The PR moved after GitHub answered: the pass still reviews the commit its diff belongs to.
    const old = await prepareReviewWorkspace(opts(head1));
    expect((await old.sandbox.exec("cat app.js")).stdout).toBe("first\n");
    await old.release();
    await expect(prepareReviewWorkspace(opts("0".repeat(40)))).rejects.toThrow(/reviewed head 0000000 of pull request #7 is not in the repository mirror/);
    expect(await redis.get(threadSandboxKey(prefix, opts(head1).target.threadId))).toBeNull();
  });
});
