import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { BaseSandbox, CompositeBackend, type ExecuteResponse, type FileDownloadResponse, type FileUploadResponse } from "deepagents";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createOpenSweAgent } from "../../../src/agent/create-agent.js";
import { buildAgentMiddleware, buildSubagentMiddleware, type AgentMiddlewareDeps } from "../../../src/agent/middleware/build-agent-middleware.js";
import { ReplayChatModel, parseReplayScript, type ReplayTurn } from "../../../src/agent/model/replay-chat-model.js";
import { RunMeter } from "../../../src/agent/run-meter.js";
import { buildFileSubagents } from "../../../src/agent/subagents/build-file-subagents.js";
import { loadAgents } from "../../../src/agent/subagents/load-agents.js";
import { ensureMirror } from "../../../src/sandbox/workspace/mirror.js";
import { mirrorCommitTree } from "../../../src/sandbox/workspace/mirror-commit-tree.js";
import { SKILLS_MOUNT, SkillsBackend } from "../../../src/agent/subagents/skills-backend.js";

class RecordingSandbox extends BaseSandbox {
  readonly id = "recording";
  readonly commands: string[] = [];
  readonly uploads: string[] = [];
  async execute(command: string): Promise<ExecuteResponse> {
    this.commands.push(command);
    return { output: "ran", exitCode: 0, truncated: false };
  }
  async uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]> {
    this.uploads.push(...files.map(([p]) => p));
    return files.map(([path]) => ({ path, error: null }));
  }
  async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    return paths.map((path) => ({ path, content: null, error: "file_not_found" }));
  }
}

interface Call {
  system: string;
  tools: string[];
}
/** The replay model, recording each call's system prompt and the tools it was offered. */
class RecordingModel extends ReplayChatModel {
  constructor(
    readonly script: ReplayTurn[],
    readonly calls: Call[],
    readonly cursor = { next: 0, nonce: "t" },
    readonly toolNames: string[] = [],
  ) {
    super(script, "test", cursor);
  }
  override bindTools(tools: BindToolsInput[]): RecordingModel {
    return new RecordingModel(
      this.script,
      this.calls,
      this.cursor,
      tools.map((t) => String((t as { name?: string }).name)),
    );
  }
  override async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], run?: CallbackManagerForLLMRun) {
    const system = messages.find((m) => m.getType() === "system");
    this.calls.push({ system: system ? system.text : "", tools: this.toolNames });
    return super._generate(messages, options, run);
  }
}

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd, encoding: "utf8" });
async function repoAgents(files: Record<string, string>, user: Record<string, string> = {}) {
  const work = mkdtempSync(join(tmpdir(), "fa-"));
  git(work, "init", "-q", "-b", "main");
  for (const [p, c] of Object.entries({ "README.md": "x", ...files })) {
    mkdirSync(dirname(join(work, p)), { recursive: true });
    writeFileSync(join(work, p), c);
  }
  git(work, "add", "-A");
  git(work, "commit", "-qm", "i");
  const mirror = await ensureMirror({ mirrorRoot: mkdtempSync(join(tmpdir(), "m-")), repo: "o/r", remoteUrl: work });
  const root = mkdtempSync(join(tmpdir(), "users-"));
  for (const [p, c] of Object.entries(user)) {
    mkdirSync(dirname(join(root, "alice", p)), { recursive: true });
    writeFileSync(join(root, "alice", p), c);
  }
  return loadAgents({ repo: mirrorCommitTree(mirror, git(work, "rev-parse", "HEAD").trim()), user: { root, login: "alice" }, runTools: ["http_request", "commit_and_push"] });
}

const hostTool = (name: string, ran: string[]) => tool(async () => (ran.push(name), `${name} ok`), { name, description: name, schema: z.object({ q: z.string().optional() }) });
const task = (agent: string, description = "do it") => ({ tool_calls: [{ name: "task", args: { description, subagent_type: agent } }] });
const call = (name: string, args: Record<string, unknown> = {}) => ({ tool_calls: [{ name, args }] });

function harness(script: unknown[], loaded: Awaited<ReturnType<typeof repoAgents>>) {
  const calls: Call[] = [];
  const model = new RecordingModel(parseReplayScript(script, "test"), calls);
  const meter = new RunMeter();
  const deps: AgentMiddlewareDeps & { meter: RunMeter } = {
    modelCallLimit: 50,
    workspaceRoot: "/",
    readWorkspaceFile: async () => undefined,
    drainFollowUps: async () => [],
    notifyStepLimit: async () => {},
    meter,
  };
  const ran: string[] = [];
  const tools = [hostTool("http_request", ran), hostTool("commit_and_push", ran)];
  const backend = new RecordingSandbox();
  const skills = loaded.skills.length > 0;
  const agent = createOpenSweAgent({
    model,
    systemPrompt: "PARENT PROMPT",
    tools,
    backend: skills ? new CompositeBackend(backend, { [SKILLS_MOUNT]: new SkillsBackend(loaded.skills) }) : backend,
    ...(skills ? { skills: [SKILLS_MOUNT] } : {}),
    middleware: buildAgentMiddleware(deps),
    subagentMiddleware: buildSubagentMiddleware(deps),
    fileSubagents: buildFileSubagents({
      agents: loaded.agents.filter((a) => a.source !== "builtin"),
      parentSystemPrompt: "PARENT PROMPT",
      tools,
      middlewareFor: (n) => buildSubagentMiddleware(deps, n),
      meter,
      runModelId: "replay:test",
      skillPath: (n) => `${SKILLS_MOUNT}${n}/`,
    }),
  });
  return { calls, backend, ran, meter, uploads: backend.uploads, invoke: async () => (await agent.invoke({ messages: [new HumanMessage("go")] })).messages as BaseMessage[] };
}

const toolResults = (messages: BaseMessage[], name: string) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.name === name).map((m) => m.text);

describe("file agents are the run's subagents, as their files say", () => {
  it("the parent's `task` reaches the file agent: the parent prompt with the body appended, exactly the listed tools", async () => {
    const loaded = await repoAgents({ ".agents/agents/researcher.md": "---\ndescription: researches\ntools: [read_file, http_request]\n---\nYou research, nothing else.\n" });
    const h = harness([task("researcher"), call("http_request"), call("execute", { command: "rm -rf /" }), { text: "researched" }, call("confirming_completion", { summary: "done" })], loaded);
    const messages = await h.invoke();
    const sub = h.calls.slice(1, 4);
    for (const c of sub) {
      expect(c.system.startsWith("PARENT PROMPT")).toBe(true);
      expect(c.system).toContain("PARENT PROMPT\n\nYou research, nothing else.");
      expect(c.tools.filter((t) => !["write_todos"].includes(t)).sort()).toEqual(["http_request", "read_file"]);
    }
    // The parent offers the agent by name in `task`, with its description.
    expect(h.calls[0]!.tools).toContain("task");
    expect(h.ran).toEqual(["http_request"]);
    expect(h.backend.commands).toEqual([]);
    expect(toolResults(messages, "task")).toEqual(["researched"]);
  });

  it("max_iteration_per_run stops that subagent with a message to the parent, across its calls in the run", async () => {
    const loaded = await repoAgents({ ".agents/agents/capped.md": "---\ndescription: capped\ntools: execute\nmax_iteration_per_run: 2\n---\nBe quick.\n" });
    const h = harness(
      [task("capped"), call("execute", { command: "echo 1" }), call("execute", { command: "echo 2" }), task("capped", "again"), call("confirming_completion", { summary: "done" })],
      loaded,
    );
    const messages = await h.invoke();
    expect(h.backend.commands).toEqual(["echo 1", "echo 2"]);
    const results = toolResults(messages, "task");
    expect(results).toHaveLength(2);
    for (const r of results) expect(r).toMatch(/^Stopped: subagent "capped" reached its max_iteration_per_run of 2 model calls for this run/);
    expect(h.meter.turnsOf("capped")).toHaveLength(2);
  });

  it("max_budget_per_run stops it before the call that would cross it", async () => {
    const loaded = await repoAgents({ ".agents/agents/spender.md": "---\ndescription: spends\ntools: execute\nmax_budget_per_run: 0.0316\n---\nSpend.\n" });
    const priced = (cmd: string) => ({ ...call("execute", { command: cmd }), model: "anthropic:claude-sonnet-4-6", usage: { input_tokens: 10_000, output_tokens: 100 } });
    // $0.0315 a turn at Sonnet's rates: spent $0.0315 + the next call's input (~100 tokens) passes $0.0316.
    const h = harness([task("spender"), priced("echo 1"), call("confirming_completion", { summary: "done" })], loaded);
    const messages = await h.invoke();
    expect(h.backend.commands).toEqual(["echo 1"]);
    expect(toolResults(messages, "task")[0]).toMatch(/^Stopped: subagent "spender" would pass its max_budget_per_run of \$0\.0316 with its next model call \(spent \$0\.0315\)/);
  });

  it("the verdict guard runs in a file agent too", async () => {
    const loaded = await repoAgents({ ".agents/agents/shell.md": "---\ndescription: shell\ntools: execute\n---\nRun things.\n" });
    const h = harness([task("shell"), call("execute", { command: "gh pr review 7 --approve" }), { text: "could not" }, call("confirming_completion", { summary: "done" })], loaded);
    expect(toolResults(await h.invoke(), "task")).toEqual(["could not"]);
    expect(h.backend.commands).toEqual([]);
  });

  it("a file named general-purpose replaces the built-in", async () => {
    const loaded = await repoAgents({ ".agents/agents/general-purpose.md": "---\ndescription: ours\ntools: [read_file]\n---\nOur general agent.\n" });
    const h = harness([task("general-purpose"), { text: "ok" }, call("confirming_completion", { summary: "done" })], loaded);
    expect(toolResults(await h.invoke(), "task")).toEqual(["ok"]);
    expect(h.calls[1]!.system).toContain("PARENT PROMPT\n\nOur general agent.");
  });

  it("skills, project and user level, are offered to the agent; a file agent gets the ones it names; nothing is uploaded to the sandbox", async () => {
    const loaded = await repoAgents(
      {
        ".agents/skills/release/SKILL.md": "---\nname: release\ndescription: how we cut a release\n---\nTag it.\n",
        ".agents/agents/releaser.md": "---\ndescription: releases\nskills: release\ntools: [read_file]\n---\nRelease.\n",
      },
      {
        ".agents/skills/triage/SKILL.md": "---\nname: triage\ndescription: how alice triages\n---\nLabel it.\n",
        ".agents/skills/release/SKILL.md": "---\nname: release\ndescription: alice's release\n---\nNo.\n",
      },
    );
    expect(loaded.skills.map((s) => [s.name, s.level])).toEqual([
      ["release", "project"],
      ["triage", "user"],
    ]);
    const h = harness(
      [task("releaser"), call("read_file", { file_path: "/skills/release/SKILL.md" }), { text: "tagged" }, task("general-purpose"), { text: "gp" }, call("confirming_completion", { summary: "done" })],
      loaded,
    );
    const messages = await h.invoke();
    expect(h.calls[0]!.system).toContain("how we cut a release");
    expect(h.calls[0]!.system).toContain("how alice triages");
    expect(h.calls[0]!.system).not.toContain("alice's release");
    // The file agent's own skills middleware lists only the skill it names.
    expect(h.calls[1]!.system).toContain("how we cut a release");
    expect(h.calls[1]!.system).not.toContain("how alice triages");
    expect(toolResults(messages, "task")).toEqual(["tagged", "gp"]);
    // The general-purpose subagent inherits the run's skills (deepagents' rule).
    expect(h.calls[4]!.system).toContain("how alice triages");
    expect(h.uploads).toEqual([]);
    expect(h.backend.commands).toEqual([]);
  });
});
