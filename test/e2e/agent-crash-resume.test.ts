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
import { threadId } from "../../src/shared/thread-id.js";
import { testPrivateKey } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { fixtureArgs } from "../helpers/fixture-command.js";
import { ROOT } from "../helpers/paths.js";
import { JobSigner } from "../../src/queue/job-provenance.js";

const PR_URL = "https://github.com/octo/hello/pull/12";
const children: ChildProcess[] = [];
const sandboxRoots: string[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  // Overlay mounts go before their directories do.
  for (const root of sandboxRoots) {
    const provider = createSandboxProvider(readSandboxConfig({ SANDBOX_ROOT: root }));
    for (const sb of await provider.list()) await provider.destroy(sb.id);
  }
});

async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...(await fixtureArgs(join(ROOT, "test/fixtures/agent-worker.ts"))), JSON.stringify(env)], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`worker exited early (${code})`)));
  });
}

describe("e2e: a worker killed mid-run", () => {
  it("is resumed by another worker from the last checkpoint, in the same sandbox, with no second PR or comment", async () => {
    const prefix = uniquePrefix();
    const remote = makeBareRemote("octo", "hello");
    const data = mkdtempSync(join(tmpdir(), "open-swe-crash-"));
    const sandboxRoot = join(data, "sandboxes");
    sandboxRoots.push(sandboxRoot);
    const replay = join(data, "run.json");
    writeFileSync(
      replay,
      JSON.stringify([
        { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/CONTRIBUTING.md", content: "# Contributing\n" } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: "Add CONTRIBUTING.md" } }] },
        { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Add CONTRIBUTING.md", body: "A guide." } }] },
        { tool_calls: [{ name: "github_comment", args: { body: `Added a guide: ${PR_URL}` } }] },
        // The first worker dies during this command; the marker lets the resumed run pass quickly.
        { tool_calls: [{ name: "execute", args: { command: "test -f .crashed-once || { touch .crashed-once; sleep 120; }" } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "added" } }] },
      ]),
    );
    const env = {
      APP_ID: "1",
      PRIVATE_KEY: testPrivateKey(),
      WEBHOOK_SECRET: "s",
      QUEUE_REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      DATA_DIR: data,
      OPEN_SWE_MODEL: `replay:${replay}`,
      GIT_REMOTE_TEMPLATE: remote.template,
      JOB_ATTEMPTS: "3",
    };
    const redis = testRedis();
    const queues = new QueueSet({ connection: redis, prefix, attempts: 3, signer: JobSigner.fromEnv(env) });
    const thread = threadId({ kind: "issue", issueId: 4004 });
    const victim = await startWorker(env);
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
        deliveryId: "crash-1",
      },
      deliveryJobId("crash-1"),
      { via: "github-webhook" },
    );
    const saver = new RedisSaver({ redis, prefix: `${prefix}:ckpt` });
    const lastCall = async () => {
      const messages = ((await saver.getTuple({ configurable: { thread_id: thread } }))?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ?? [];
      const last = messages.at(-1) as { tool_calls?: { name: string }[] } | undefined;
      return last?.tool_calls?.[0]?.name;
    };
    for (let i = 0; (await lastCall()) !== "execute"; i++) {
      if (i > 1500) throw new Error("the run never reached its long command");
      await new Promise((r) => setTimeout(r, 20));
    }
    // Kill only once the command is really running (its marker exists in the thread's sandbox).
    const provider = createSandboxProvider(readSandboxConfig({ SANDBOX_ROOT: sandboxRoot }));
    const sandbox = await provider.connect((await redis.get(threadSandboxKey(prefix, thread)))!);
    for (let i = 0; (await sandbox.exec("test -f .crashed-once")).exitCode !== 0; i++) {
      if (i > 500) throw new Error("the long command never started");
      await new Promise((r) => setTimeout(r, 20));
    }
    victim.kill("SIGKILL");
    await startWorker(env);

    const done = await waitForJob(queues.queues.agent, deliveryJobId("crash-1"), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "pr_opened", prUrl: PR_URL } });

    const calls = await redis.lrange(`${prefix}:gh-calls`, 0, -1);
    expect(calls.filter((c) => c.startsWith("POST /repos/octo/hello/pulls "))).toHaveLength(1);
    expect(calls.filter((c) => c.startsWith("POST /repos/octo/hello/issues/4/comments"))).toHaveLength(1);
    expect(calls.filter((c) => c.includes("/reactions"))).toHaveLength(1);
    const patches = calls.filter((c) => c.startsWith("PATCH /repos/octo/hello/issues/comments/555"));
    expect(patches).toHaveLength(1);
    expect(patches[0]).toContain(`Added a guide: ${PR_URL}`);
    const branch = remote
      .git("branch", "--list", "open-swe/*")
      .trim()
      .replace(/^\*?\s*/, "");
    expect(remote.git("rev-list", "--count", `main..${branch}`).trim()).toBe("1");
    await queues.close();
  }, 120_000);

  it("resumed on another host in a new, empty sandbox: the model is told what was lost, and the reply says nothing was pushed", async () => {
    const prefix = uniquePrefix();
    const remote = makeBareRemote("octo", "hello");
    // Two machines: each worker has its own DATA_DIR, so the second cannot reach the first's sandbox.
    const hostA = mkdtempSync(join(tmpdir(), "open-swe-host-a-"));
    const hostB = mkdtempSync(join(tmpdir(), "open-swe-host-b-"));
    sandboxRoots.push(join(hostA, "sandboxes"), join(hostB, "sandboxes"));
    const replay = join(hostA, "run.json");
    writeFileSync(
      replay,
      JSON.stringify([
        { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/CONTRIBUTING.md", content: "# Contributing\n" } }] },
        // Host A dies during this command (its file is there); on host B the file is gone and it passes at once.
        { tool_calls: [{ name: "execute", args: { command: "if test -f CONTRIBUTING.md; then touch .running; sleep 120; fi" } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: "Add CONTRIBUTING.md" } }] },
        { tool_calls: [{ name: "github_comment", args: { body: "I added CONTRIBUTING.md and pushed it." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "added" } }] },
      ]),
    );
    const base = {
      APP_ID: "1",
      PRIVATE_KEY: testPrivateKey(),
      WEBHOOK_SECRET: "s",
      QUEUE_REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      OPEN_SWE_MODEL: `replay:${replay}`,
      GIT_REMOTE_TEMPLATE: remote.template,
      JOB_ATTEMPTS: "3",
      // Host A's liveness lapses in 1.5 s, not the 30 s default, before host B's worker may take its job over (as in the other multi-host tests).
      HOST_ALIVE_MS: "1500",
    };
    const redis = testRedis();
    const queues = new QueueSet({ connection: redis, prefix, attempts: 3, signer: JobSigner.fromEnv(base) });
    const thread = threadId({ kind: "issue", issueId: 4005 });
    const victim = await startWorker({ ...base, DATA_DIR: hostA });
    await queues.add(
      "agent",
      {
        installationId: 7,
        owner: "octo",
        repo: "hello",
        number: 5,
        isPullRequest: false,
        threadId: thread,
        trigger: "comment",
        requester: { login: "dana", id: 31 },
        text: "add a CONTRIBUTING.md",
        comment: { kind: "issue_comment", id: 1 },
        deliveryId: "crash-2",
      },
      deliveryJobId("crash-2"),
      { via: "github-webhook" },
    );
    const saver = new RedisSaver({ redis, prefix: `${prefix}:ckpt` });
    const messages = async () => ((await saver.getTuple({ configurable: { thread_id: thread } }))?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ?? [];
    for (let i = 0; ((await messages()).at(-1) as { tool_calls?: { name: string }[] } | undefined)?.tool_calls?.[0]?.name !== "execute"; i++) {
      if (i > 1500) throw new Error("the run never reached its long command");
      await new Promise((r) => setTimeout(r, 20));
    }
    const provider = createSandboxProvider(readSandboxConfig({ SANDBOX_ROOT: join(hostA, "sandboxes") }));
    const sandbox = await provider.connect((await redis.get(threadSandboxKey(prefix, thread)))!);
    for (let i = 0; (await sandbox.exec("test -f .running")).exitCode !== 0; i++) {
      if (i > 500) throw new Error("the long command never started");
      await new Promise((r) => setTimeout(r, 20));
    }
    victim.kill("SIGKILL");
    await startWorker({ ...base, DATA_DIR: hostB });

    const done = await waitForJob(queues.queues.agent, deliveryJobId("crash-2"), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(done.returnvalue).toMatchObject({ outcome: "completed" });
    // The model read what was lost before its first call after the resume, after the re-run command's result.
    const all = await messages();
    const note = all.findIndex((m) => m.getType() === "human" && String(m.content).startsWith("Note: this run was resumed in a new sandbox"));
    expect(note).toBeGreaterThan(0);
    expect(all[note - 1]!.getType()).toBe("tool");
    expect(String(all[note]!.content)).toContain("Nothing had been pushed yet");
    expect(String(all[note]!.content)).toContain("uncommitted changes");
    // Nothing reached the branch, and the reply leads with that, not with the model's claim alone.
    expect(remote.git("branch", "--list", "open-swe/*").trim()).toBe("");
    const calls = await redis.lrange(`${prefix}:gh-calls`, 0, -1);
    const patches = calls.filter((c) => c.startsWith("PATCH /repos/octo/hello/issues/comments/555"));
    expect(patches).toHaveLength(1);
    const body = (JSON.parse(patches[0]!.slice(patches[0]!.indexOf("{"), patches[0]!.lastIndexOf(" @"))) as { body: string }).body;
    expect(body).toMatch(
      /^Note: this run was resumed in a new sandbox after its worker stopped, and the uncommitted work of the earlier attempt was lost\. Nothing was pushed after the resume: nothing was pushed at all/,
    );
    expect(body.indexOf("I added CONTRIBUTING.md and pushed it.")).toBeGreaterThan(0);
    await queues.close();
  }, 120_000);
});
