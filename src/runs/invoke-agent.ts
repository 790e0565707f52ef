import { AIMessage, type BaseMessage, type HumanMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { Command } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { RUN_SIDE_EFFECT_TOOLS } from "./run-tool-names.js";
import { createOpenSweAgent } from "../agent/create-agent.js";
import { buildAgentMiddleware, buildSubagentMiddleware, type AgentMiddlewareDeps } from "../agent/middleware/build-agent-middleware.js";
import { RunMeter } from "../agent/run-meter.js";
import { buildFileSubagents } from "../agent/subagents/build-file-subagents.js";
import type { ResolvedAgent } from "../agent/subagents/resolve-agents.js";
import type { SkillFiles } from "../agent/subagents/read-agent-dirs.js";
import { SKILLS_MOUNT, SkillsBackend } from "../agent/subagents/skills-backend.js";
import { CompositeBackend } from "deepagents";
import { renderPrompt } from "../agent/prompts.js";
import { toolPolicyNotice, type RunToolPolicies } from "../config/tool-policy.js";
import { composeSystemPrompt, type PromptParts } from "../agent/compose-prompt.js";
import { pendingToolCalls, type PendingToolCalls } from "../agent/pending-tool-calls.js";
import { SandboxBackend } from "../sandbox/deepagents-backend.js";
import { isSandboxError, type Sandbox } from "../sandbox/types.js";

export interface InvokeAgentOptions {
  model: BaseChatModel;
  sandbox: Sandbox;
  tools: StructuredToolInterface[];
  middleware: Omit<AgentMiddlewareDeps, "workspaceRoot" | "readWorkspaceFile" | "circuitBreaker" | "meter">;
  checkpointer: BaseCheckpointSaver;
  threadId: string;
  prompt: { repo: string; defaultBranch: string };
  message: HumanMessage;
  execTimeoutMs: number;
  signal: AbortSignal;
  /** File-based agents resolved for this run (built-ins are added by the agent itself), with the models they name. */
  agents?: { resolved: readonly ResolvedAgent[]; models?: ReadonlyMap<string, BaseChatModel>; runModelId: string; skills?: readonly SkillFiles[] };
  /** Prompt parts after the global prompt (seed 004 order; keep them free of per-run values). */
  promptParts?: Omit<PromptParts, "global">;
  /** Resume from the thread's last checkpoint instead of sending `message` (a retried job after a crash). */
  resumeIfPending?: () => Promise<boolean>;
  /** Read by the model before its next call when the run does resume (a fresh start's `message` carries its own notes). */
  resumeNote?: string;
  /** Progress as the run goes: a model call, a tool call and its result (`open-swe run` prints them). */
  /** `deny` tools are removed (and the prompt says so); `ask` tools pause the run before each call. */
  toolPolicies?: RunToolPolicies;
  /** A decision on the thread's paused tool calls (all of them): the run continues from its checkpoint with it. */
  decision?: { type: "approve" } | { type: "reject"; message: string };
  onToolExecuted?: (name: string, durationMs: number, result: unknown) => void;
  onProgress?: (event: { kind: "model" } | { kind: "tool"; name: string; input: string } | { kind: "tool_result"; name: string; output: string }) => void;
}

export interface InvokeAgentResult {
  messages: BaseMessage[];
  /** The `task` subagents' turns and tool calls this run (they are not in `messages`). */
  meter: RunMeter;
  error?: unknown;
  resumed: boolean;
  /** Set when the run paused before `ask` tool calls: what they are; the checkpoint holds the rest. */
  interrupt?: PendingToolCalls;
}

/** Whether the conversation ends with the model's tool calls, none of them answered yet. */
function unansweredToolCalls(messages: readonly BaseMessage[]): boolean {
  const last = messages.at(-1);
  if (!last || !AIMessage.isInstance(last)) return false;
  return (last.tool_calls ?? []).length > 0;
}

/** Builds the deepagents graph over the sandbox and runs one turn of the thread's conversation. */
export async function invokeAgent(o: InvokeAgentOptions): Promise<InvokeAgentResult> {
  const meter = new RunMeter();
  // Set once the run is known to resume; the first model call after it reads it ahead of any follow-up.
  let resumeNote: string | undefined;
  const deps: AgentMiddlewareDeps & { meter: RunMeter } = {
    ...o.middleware,
    drainFollowUps: async (threadId) => {
      const texts = await o.middleware.drainFollowUps(threadId);
      if (resumeNote === undefined) return texts;
      const note = resumeNote;
      resumeNote = undefined;
      return [note, ...texts];
    },
    meter,
    circuitBreaker: { isSandboxFailure: (err) => isSandboxError(err) },
    workspaceRoot: o.sandbox.workdir,
    readWorkspaceFile: async (path) => {
      const [file] = await o.sandbox.download([path]);
      return file?.content ? Buffer.from(file.content).toString("utf8") : undefined;
    },
  };
  const middleware = buildAgentMiddleware(deps);
  const systemPrompt = composeSystemPrompt({
    global: renderPrompt("agent", { repo: o.prompt.repo, workspace_root: o.sandbox.workdir, default_branch: o.prompt.defaultBranch }),
    ...o.promptParts,
    // Tools, then servers: the policy notice leads the context parts.
    context: [...(o.toolPolicies ? [toolPolicyNotice(o.toolPolicies)] : []), ...(o.promptParts?.context ?? [])],
  });
  const fileAgents = (o.agents?.resolved ?? []).filter((a) => a.source !== "builtin");
  const skills = o.agents?.skills ?? [];
  const sandboxBackend = new SandboxBackend(o.sandbox, { timeoutMs: o.execTimeoutMs, signal: o.signal });
  // Skills are served to the file tools from the worker's memory (read from the mirror), never copied into the sandbox.
  const backend = skills.length > 0 ? new CompositeBackend(sandboxBackend, { [SKILLS_MOUNT]: new SkillsBackend(skills) }) : sandboxBackend;
  const agent = createOpenSweAgent({
    model: o.model,
    systemPrompt,
    backend,
    ...(skills.length > 0 ? { skills: [SKILLS_MOUNT] } : {}),
    tools: o.tools,
    middleware,
    subagentMiddleware: buildSubagentMiddleware(deps),
    ...(fileAgents.length > 0
      ? {
          fileSubagents: buildFileSubagents({
            agents: fileAgents,
            parentSystemPrompt: systemPrompt,
            tools: o.tools,
            middlewareFor: (name) => buildSubagentMiddleware(deps, name),
            meter,
            runModelId: o.agents!.runModelId,
            skillPath: (name) => (skills.some((s) => s.name === name) ? `${SKILLS_MOUNT}${name}/` : undefined),
            ...(o.toolPolicies ? { runPolicies: o.toolPolicies } : {}),
            sideEffectTools: RUN_SIDE_EFFECT_TOOLS,
            ...(o.agents?.models ? { models: o.agents.models } : {}),
          }),
        }
      : {}),
    checkpointer: o.checkpointer,
    ...(o.toolPolicies ? { toolPolicies: o.toolPolicies } : {}),
    ...(o.onToolExecuted ? { onToolExecuted: o.onToolExecuted } : {}),
  });
  type GraphState = { next: string[]; values: { messages?: BaseMessage[] }; tasks?: Array<{ interrupts?: Array<{ value?: unknown }> }> };
  const stateOf = (agent as unknown as { getState(c: unknown): Promise<GraphState> }).getState.bind(agent);
  // "sync": each step's checkpoint is written before the next step starts, so a killed worker's
  // successor resumes exactly after the last completed step.
  const progress = o.onProgress;
  const names = new Map<string, string>();
  const callbacks = progress
    ? [
        BaseCallbackHandler.fromMethods({
          handleChatModelStart: () => progress({ kind: "model" }),
          handleToolStart: (tool, input, runId, _parent, _tags, _meta, runName) => {
            const name = runName ?? tool.name ?? "tool";
            names.set(runId, name);
            progress({ kind: "tool", name, input: typeof input === "string" ? input : JSON.stringify(input) });
          },
          handleToolEnd: (output, runId) => {
            // A `task` result is a Command whose last message is the subagent's answer.
            const update = (output as { update?: { messages?: Array<{ content?: unknown }> } } | undefined)?.update;
            const content = update?.messages?.at(-1)?.content ?? (output as { content?: unknown } | undefined)?.content ?? output;
            progress({ kind: "tool_result", name: names.get(runId) ?? "tool", output: typeof content === "string" ? content : JSON.stringify(content) });
          },
        }),
      ]
    : undefined;
  const config = { configurable: { thread_id: o.threadId }, recursionLimit: 10_000, signal: o.signal, durability: "sync" as const, ...(callbacks ? { callbacks } : {}) };
  const resumedAt = o.resumeIfPending && (await o.resumeIfPending()) ? await stateOf(config) : undefined;
  // A checkpoint waiting in a node this version's graph no longer has (an upgrade during the run) has no
  // next node here; when the model's tool calls are what it left unanswered, the run resumes with them.
  const orphaned = resumedAt !== undefined && resumedAt.next.length === 0 && unansweredToolCalls(resumedAt.values.messages ?? []);
  const resumed = resumedAt !== undefined && (resumedAt.next.length > 0 || orphaned);
  if (resumed && o.resumeNote) resumeNote = o.resumeNote;
  // A decision is sent only while the thread still waits for one (a retried resume job may find it applied).
  const waiting = o.decision !== undefined ? pendingToolCalls(await stateOf(config)) : undefined;
  const decide = waiting !== undefined;
  try {
    const input = waiting
      ? new Command({ resume: { decisions: waiting.actionRequests.map(() => o.decision) } })
      : orphaned
        ? new Command({ goto: "tools" })
        : resumed || o.decision !== undefined
          ? null
          : { messages: [o.message] };
    const result = await agent.invoke(input as never, config);
    const interrupt = pendingToolCalls(await stateOf(config));
    return { messages: result.messages as BaseMessage[], meter, resumed: resumed || decide, ...(interrupt ? { interrupt } : {}) };
  } catch (error) {
    const messages = (await stateOf(config).catch(() => null))?.values.messages ?? [];
    return { messages, meter, error, resumed };
  }
}
