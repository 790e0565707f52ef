import { JobSigner } from "../../src/queue/job-provenance.js";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { afterAll, describe, expect, it } from "vitest";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { QueueSet } from "../../src/queue/queues.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { threadSandboxKey } from "../../src/sandbox/lifecycle.js";
import { createSandboxProvider } from "../../src/sandbox/registry.js";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { connectRedis } from "../../src/store/redis.js";
import { threadId } from "../../src/shared/thread-id.js";
import { testPrivateKey } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob, findJob } from "../helpers/jobs.js";
import { startPrivateRedis, type PrivateRedis } from "../helpers/private-redis.js";
import { uniquePrefix } from "../helpers/redis.js";
import { fixtureArgs } from "../helpers/fixture-command.js";
import { ROOT } from "../helpers/paths.js";

// Slow (multi-process, ~30 s): a real redis-server frozen with SIGSTOP, a real worker process, the replay model.
const PR_URL = "https://github.com/octo/hello/pull/12";
const LOCK_MS = 1_500;
const children: ChildProcess[] = [];
let sandboxRoot = "";
let redisServer: PrivateRedis | null = null;
afterAll(async () => {
  redisServer?.child.kill("SIGCONT");
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await redisServer?.kill();
  const provider = createSandboxProvider(readSandboxConfig({ SANDBOX_ROOT: sandboxRoot }));
  for (const sb of await provider.list()) await provider.destroy(sb.id);
});

async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...(await fixtureArgs(join(ROOT, "test/fixtures/agent-worker.ts"))), JSON.stringify(env)], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`worker exited early (${code})`)));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a Redis outage never runs a job twice", () => {
  it("Redis frozen past the job lock mid-run: the run that lost its lock stops; one reply, one PR, nothing done after the job completed", async () => {
    redisServer = await startPrivateRedis();
    const prefix = uniquePrefix();
    const remote = makeBareRemote("octo", "hello");
    const data = mkdtempSync(join(tmpdir(), "open-swe-freeze-"));
    sandboxRoot = join(data, "sandboxes");
    const replay = join(data, "run.json");
    writeFileSync(
      replay,
      JSON.stringify([
        { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/CONTRIBUTING.md", content: "# Contributing\n" } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: "Add CONTRIBUTING.md" } }] },
        { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Add CONTRIBUTING.md", body: "A guide." } }] },
        { tool_calls: [{ name: "github_comment", args: { body: `Added a guide: ${PR_URL}` } }] },
        // Redis freezes during this command; the execution that outlives the freeze would go on after it.
        { tool_calls: [{ name: "execute", args: { command: "test -f .frozen-once || { touch .frozen-once; sleep 10; }" } }] },
        { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Add CONTRIBUTING.md", body: "A guide, checked." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "added" } }] },
      ]),
    );
    const env = {
      APP_ID: "1",
      PRIVATE_KEY: testPrivateKey(),
      WEBHOOK_SECRET: "s",
      QUEUE_REDIS_URL: redisServer.url,
      QUEUE_PREFIX: prefix,
      DATA_DIR: data,
      OPEN_SWE_MODEL: `replay:${replay}`,
      GIT_REMOTE_TEMPLATE: remote.template,
      JOB_ATTEMPTS: "3",
      QUEUE_LOCK_DURATION_MS: String(LOCK_MS),
      QUEUE_STALLED_INTERVAL_MS: "750",
    };
    const redis = connectRedis(redisServer.url);
    const queues = new QueueSet({ connection: redis, prefix, attempts: 3, signer: JobSigner.fromEnv({ WEBHOOK_SECRET: "s" }) });
    const thread = threadId({ kind: "issue", issueId: 5005 });
    await startWorker(env);
    const id = deliveryJobId("freeze-1");
    await queues.add(
      "agent",
      {
        installationId: 7,
        owner: "octo",
        repo: "hello",
        number: 4,
        isPullRequest: false,
        threadId: thread,
        trigger: "comment",
        requester: { login: "dana", id: 31 },
        text: "add a CONTRIBUTING.md",
        comment: { kind: "issue_comment", id: 1 },
        deliveryId: "freeze-1",
      },
      id,
      { via: "github-webhook" },
    );
    const saver = new RedisSaver({ redis, prefix: `${prefix}:ckpt` });
    const lastCall = async () => {
      const messages = ((await saver.getTuple({ configurable: { thread_id: thread } }))?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ?? [];
      return (messages.at(-1) as { tool_calls?: { name: string }[] } | undefined)?.tool_calls?.[0]?.name;
    };
    for (let i = 0; (await lastCall()) !== "execute"; i++) {
      if (i > 1500) throw new Error("the run never reached its long command");
      await sleep(20);
    }
    const provider = createSandboxProvider(readSandboxConfig({ SANDBOX_ROOT: sandboxRoot }));
    const sandbox = await provider.connect((await redis.get(threadSandboxKey(prefix, thread)))!);
    for (let i = 0; (await sandbox.exec("test -f .frozen-once")).exitCode !== 0; i++) {
      if (i > 500) throw new Error("the long command never started");
      await sleep(20);
    }
    // Frozen, not killed: connections stay open and every command waits, as in a stop-the-world pause.
    const frozenAt = Date.now();
    redisServer.child.kill("SIGSTOP");
    await sleep(3 * LOCK_MS);
    redisServer.child.kill("SIGCONT");

    const done = await waitForJob(queues.queues.agent, id, 40_000);
    expect(done.failedReason).toBeUndefined();
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "pr_opened", prUrl: PR_URL } });
    const finishedOn = (await findJob(queues.queues.agent, id))!.finishedOn!;
    // An execution that kept going through the freeze would finish its 10 s command and act now.
    await sleep(Math.max(0, frozenAt + 13_000 - Date.now()));

    const calls = await redis.lrange(`${prefix}:gh-calls`, 0, -1);
    const at = (c: string) => Number(c.slice(c.lastIndexOf("@") + 1));
    expect(calls.filter((c) => c.startsWith("POST /repos/octo/hello/issues/4/comments"))).toHaveLength(1);
    expect(calls.filter((c) => c.startsWith("POST /repos/octo/hello/pulls "))).toHaveLength(1);
    expect(calls.filter((c) => c.startsWith("PATCH /repos/octo/hello/pulls/12"))).toHaveLength(1);
    expect(calls.filter((c) => c.includes("/reactions"))).toHaveLength(1);
    expect(calls.filter((c) => c.startsWith("PATCH /repos/octo/hello/issues/comments/555"))).toHaveLength(1);
    expect(calls.filter((c) => at(c) > finishedOn)).toEqual([]);
    const branch = remote
      .git("branch", "--list", "open-swe/*")
      .trim()
      .replace(/^\*?\s*/, "");
    expect(remote.git("rev-list", "--count", `main..${branch}`).trim()).toBe("1");
    await queues.close();
    redis.disconnect();
    // ~40 s alone; the margin is for a loaded machine.
  }, 90_000);
});
