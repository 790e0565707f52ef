import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import type { RunningProcess } from "../../src/main.js";
import { ensureMirror } from "../../src/sandbox/workspace/mirror.js";
import { RunIndex } from "../../src/store/run-index.js";
import { RunRecords } from "../../src/store/run-records.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { ThreadRepos } from "../../src/threads/thread-repo.js";
import { cookieHeader, keep } from "../helpers/cookie-jar.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { mockRepoRole } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import { CLIENT_ID, CLIENT_SECRET, mockSignIn } from "../dashboard/browser.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd, encoding: "utf8" });

/** `repo`'s remote with a pushed branch adding `line`, mirrored under `root` as the worker's push leaves it; the pushed sha. */
const remotes = new Map<string, ReturnType<typeof makeBareRemote>>();
async function pushedInMirror(root: string, repo: string, line: string): Promise<string> {
  const [owner, name] = repo.split("/") as [string, string];
  const remote = remotes.get(repo) ?? makeBareRemote(owner, name);
  remotes.set(repo, remote);
  const work = mkdtempSync(join(tmpdir(), "parts-"));
  git(work, "clone", "-q", remote.bare, ".");
  const branch = `open-swe/${line.toLowerCase()}`;
  git(work, "checkout", "-q", "-b", branch);
  writeFileSync(join(work, "NOTES.md"), `${line}\n`);
  git(work, "add", "-A");
  git(work, "commit", "-qm", "notes");
  git(work, "push", "-q", "origin", branch);
  await ensureMirror({ mirrorRoot: root, repo, remoteUrl: remote.bare });
  return git(work, "rev-parse", "HEAD").trim();
}

describe("a run's subagent conversations and pushed diff are its repository's, shown only to who may read it", () => {
  let proc: RunningProcess;
  let base: string;
  const prefix = uniquePrefix();
  const mirrors = mkdtempSync(join(tmpdir(), "parts-mirrors-"));

  /** A finished run on `repo` whose thread holds a subagent conversation saying `said`, and which pushed `line`. */
  async function seed(runId: string, repo: string, threadId: string, said: string, line: string): Promise<void> {
    await new RunIndex(proc.redis, prefix).put({ runId, repo, threadId, trigger: "comment", source: "github", requester: "x", title: runId, status: "completed", queuedAt: Date.now() });
    const saver = new RedisSaver({ redis: proc.redis, prefix: `${prefix}:ckpt` });
    const parent = [
      new HumanMessage("go"),
      new AIMessage({ content: "", tool_calls: [{ id: "t1", name: "task", args: { description: "look", subagent_type: "general-purpose" } }] }),
      new ToolMessage({ content: "done", tool_call_id: "t1", name: "task" }),
    ];
    const meta = { source: "loop" as const, step: 1, parents: {} };
    await saver.put(
      { configurable: { thread_id: threadId, checkpoint_ns: "" } },
      { ...emptyCheckpoint(), id: uuid6(1), channel_values: { messages: parent }, channel_versions: { messages: 1 } },
      meta,
      { messages: 1 },
    );
    await saver.put(
      { configurable: { thread_id: threadId, checkpoint_ns: "tools:1" } },
      { ...emptyCheckpoint(), id: uuid6(1), channel_values: { messages: [new HumanMessage("look"), new AIMessage(said)] }, channel_versions: { messages: 1 } },
      meta,
      { messages: 1 },
    );
    const pushedSha = await pushedInMirror(mirrors, repo, line);
    await new RunRecords(proc.redis, prefix).save(runId, {
      threadId,
      trigger: "comment",
      modelId: "replay",
      effort: "medium",
      replayed: true,
      startedAt: new Date().toISOString(),
      durationMs: 1,
      modelCalls: 1,
      inputTokens: 0,
      outputTokens: 0,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      toolCounts: {},
      outcome: "completed",
      pushedSha,
    });
  }

  beforeAll(async () => {
    proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, GITHUB_CLIENT_ID: CLIENT_ID, GITHUB_CLIENT_SECRET: CLIENT_SECRET, SANDBOX_MIRROR_ROOT: mirrors });
    base = `http://127.0.0.1:${proc.port}`;
    const settings = new SettingsStore(proc.redis, prefix);
    await settings.recordInstalled("octo/hello", { installationId: 4242 });
    await settings.recordInstalled("octo/secret", { installationId: 4242 });
    // Reading a run asks GitHub whether dana may read octo/hello now (then cached).
    mockRepoRole("dana");
    await seed("run-hello", "octo/hello", "gh:octo/hello#1", "HELLO-SUBAGENT", "HELLO-DIFF-LINE");
    await seed("run-secret", "octo/secret", "gh:octo/secret#1", "SECRET-SUBAGENT", "SECRET-DIFF-LINE");
    // A source thread recorded as octo/secret's, claimed by a run on octo/hello.
    const { threadId: moved } = await new ThreadRepos(proc.redis, prefix).place("slack:T1:C1:1.0", "octo/secret");
    await seed("run-moved", "octo/hello", moved, "MOVED-SUBAGENT", "MOVED-DIFF-LINE");
  }, 60_000);
  afterAll(async () => proc?.stop());

  /** Signs in as dana: push on octo/hello, read-only on octo/secret. */
  async function signIn(): Promise<Map<string, string>> {
    const jar = new Map<string, string>();
    const login = await fetch(`${base}/auth/login?next=%2Fapp`, { redirect: "manual" });
    keep(jar, login);
    const authorize = new URL(login.headers.get("location")!);
    mockSignIn(
      {
        login: "dana",
        id: 31,
        repos: [
          { full_name: "octo/hello", push: true },
          { full_name: "octo/secret", push: false },
        ],
      },
      () => authorize.searchParams.get("code_challenge") ?? undefined,
    );
    keep(jar, await fetch(`${base}/auth/callback?code=code-1&state=${authorize.searchParams.get("state")}`, { redirect: "manual", headers: { cookie: cookieHeader(jar) } }));
    return jar;
  }

  it("another repository's run: neither its subagents nor its diff, on the page or through show all", async () => {
    const jar = await signIn();
    const get = (p: string) => fetch(`${base}${p}`, { headers: { cookie: cookieHeader(jar) } });
    const own = await get("/app/runs/run-hello");
    const ownPage = await own.text();
    expect(ownPage).toContain("HELLO-SUBAGENT");
    expect(ownPage).toContain("HELLO-DIFF-LINE");
    expect(await (await get("/app/runs/run-hello/subagents/0/messages/1")).text()).toBe("HELLO-SUBAGENT");

    const secret = await get("/app/runs/run-secret");
    expect(secret.status).toBe(404);
    const secretPage = await secret.text();
    expect(secretPage).not.toContain("SECRET-SUBAGENT");
    expect(secretPage).not.toContain("SECRET-DIFF-LINE");
    const shown = await get("/app/runs/run-secret/subagents/0/messages/1");
    expect(shown.status).toBe(404);
    expect(await shown.text()).not.toContain("SECRET-SUBAGENT");
  });

  it("a run whose thread is another repository's: the thread's subagents are not shown as the run's", async () => {
    const jar = await signIn();
    const get = (p: string) => fetch(`${base}${p}`, { headers: { cookie: cookieHeader(jar) } });
    const page = await (await get("/app/runs/run-moved")).text();
    expect(page).toContain('id="conversation-hidden"');
    expect(page).not.toContain("MOVED-SUBAGENT");
    const shown = await get("/app/runs/run-moved/subagents/0/messages/1");
    expect(shown.status).toBe(404);
    expect(await shown.text()).not.toContain("MOVED-SUBAGENT");
  });
});
