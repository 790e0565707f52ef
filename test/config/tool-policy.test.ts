import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command } from "@langchain/langgraph";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { createOpenSweAgent } from "../../src/agent/create-agent.js";
import { buildAgentMiddleware } from "../../src/agent/middleware/build-agent-middleware.js";
import { TOOL_DENIED_ERROR_CODE } from "../../src/agent/middleware/tool-policy.js";
import { resolveRunToolPolicies, resolveToolPolicy, toolPolicyNotice, type PolicySources, type ResolvedPolicy } from "../../src/config/tool-policy.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

describe("resolveToolPolicy: repo config › team default › built-in", () => {
  const cases: Array<[string, string, PolicySources, ResolvedPolicy]> = [
    ["our tools are allowed by default", "commit_and_push", {}, { policy: "always_allow", source: "builtin" }],
    ["execute is allowed by default", "execute", {}, { policy: "always_allow", source: "builtin" }],
    ["reads are allowed by default", "read_file", {}, { policy: "always_allow", source: "builtin" }],
    ["PR writes are allowed by default", "open_or_update_pull_request", {}, { policy: "always_allow", source: "builtin" }],
    ["MCP tools ask by default", "mcp__docs__search", {}, { policy: "ask", source: "builtin" }],
    ["the team default beats the built-in", "execute", { team: { execute: "ask" } }, { policy: "ask", source: "team" }],
    ["the repo beats the team", "execute", { repo: { execute: "deny" }, team: { execute: "ask" } }, { policy: "deny", source: "repo" }],
    ["a team may allow an MCP tool", "mcp__docs__search", { team: { mcp__docs__search: "always_allow" } }, { policy: "always_allow", source: "team" }],
    ["a repo pattern covers a server's tools", "mcp__docs__search", { repo: { "mcp__docs__*": "deny" } }, { policy: "deny", source: "repo" }],
    ["an exact name beats a pattern in the same level", "mcp__docs__search", { repo: { "mcp__docs__*": "deny", mcp__docs__search: "ask" } }, { policy: "ask", source: "repo" }],
    ["a longer prefix beats a shorter one", "mcp__docs__search", { repo: { "mcp__*": "deny", "mcp__docs__*": "always_allow" } }, { policy: "always_allow", source: "repo" }],
    ["a repo pattern beats a team exact name", "mcp__docs__search", { repo: { "mcp__*": "deny" }, team: { mcp__docs__search: "always_allow" } }, { policy: "deny", source: "repo" }],
    ["* covers every tool", "github_comment", { team: { "*": "ask" } }, { policy: "ask", source: "team" }],
    ["another tool's entry does not apply", "execute", { repo: { grep: "deny" } }, { policy: "always_allow", source: "builtin" }],
    ["a pattern matches by prefix only", "execute", { repo: { "exec*": "deny", "cute*": "ask" } }, { policy: "deny", source: "repo" }],
    ["an inherited property name is not a policy", "constructor", { repo: {} }, { policy: "always_allow", source: "builtin" }],
  ];
  it.each(cases)("%s", (_label, name, sources, expected) => expect(resolveToolPolicy(name, sources)).toEqual(expected));

  it("sorts a run's tools into denied and ask; the notice names them", () => {
    const p = resolveRunToolPolicies(["execute", "grep", "mcp__docs__search", "write_file"], { repo: { write_file: "deny" }, team: { execute: "ask" } });
    expect(p).toEqual({ denied: ["write_file"], ask: ["execute", "mcp__docs__search"] });
    expect(toolPolicyNotice(p)).toMatch(/disabled .*`write_file`/);
    expect(toolPolicyNotice(p)).toMatch(/approval .*`execute`, `mcp__docs__search`/);
    expect(toolPolicyNotice({ denied: [], ask: [] })).toBe("");
  });
});

const stack = () => buildAgentMiddleware({ modelCallLimit: 20, workspaceRoot: "/", readWorkspaceFile: async () => undefined, drainFollowUps: async () => [], notifyStepLimit: async () => {} });

function recordingModel(model: ReturnType<typeof fakeModel>) {
  const bound: string[][] = [];
  const orig = model.bindTools.bind(model);
  model.bindTools = ((tools: Array<{ name?: string }>) => {
    bound.push(tools.map((t) => String(t.name)));
    return orig(tools as never);
  }) as typeof model.bindTools;
  return { model, bound };
}

describe("tool policies in the agent", () => {
  it("deny: the tool is not offered to the model, a call to it is refused, and the prompt says so", async () => {
    const { model, bound } = recordingModel(
      fakeModel()
        .respondWithTools([{ name: "write_file", args: { file_path: "/x.md", content: "x" } }])
        .respondWithTools([{ name: "confirming_completion", args: { summary: "done" } }]),
    );
    const agent = createOpenSweAgent({
      model,
      systemPrompt: "You are the agent.\n\nDisabled by policy: write_file",
      tools: [],
      middleware: stack(),
      toolPolicies: { denied: ["write_file"], ask: [] },
    });
    const result = await agent.invoke({ messages: [new HumanMessage("write x.md")] });
    expect(bound.length).toBeGreaterThan(0);
    for (const names of bound) {
      expect(names).not.toContain("write_file");
      expect(names).toContain("read_file");
    }
    const refusal = result.messages.find((m) => ToolMessage.isInstance(m) && m.name === "write_file");
    expect(String(refusal?.content)).toContain(TOOL_DENIED_ERROR_CODE);
    expect(Object.keys((result as unknown as { files?: Record<string, unknown> }).files ?? {})).toEqual([]);
  });

  it("ask: the run pauses before the call; approve runs it, reject answers the model without running it", async () => {
    const posted: string[] = [];
    const comment = tool(async ({ body }) => (posted.push(body), "posted"), { name: "github_comment", description: "Reply", schema: z.object({ body: z.string() }) });
    const checkpointer = new RedisSaver({ redis: testRedis(), prefix: uniquePrefix() });
    const model = fakeModel()
      .respondWithTools([{ name: "github_comment", args: { body: "first" } }])
      .respondWithTools([{ name: "github_comment", args: { body: "second" } }])
      .respondWithTools([{ name: "confirming_completion", args: { summary: "done" } }]);
    const agent = createOpenSweAgent({ model, systemPrompt: "agent", tools: [comment], middleware: stack(), checkpointer, toolPolicies: { denied: [], ask: ["github_comment"] } });
    const config = { configurable: { thread_id: "policy-ask" } };
    const getState = (agent as unknown as { getState(c: unknown): Promise<{ tasks?: Array<{ interrupts?: Array<{ value?: unknown }> }> }> }).getState.bind(agent);
    const interrupts = async () => ((await getState(config)).tasks ?? []).flatMap((t) => t.interrupts ?? []);

    await agent.invoke({ messages: [new HumanMessage("reply twice")] }, config);
    expect(posted).toEqual([]);
    const first = await interrupts();
    expect(first).toHaveLength(1);
    expect(first[0]?.value).toMatchObject({ actionRequests: [{ name: "github_comment", args: { body: "first" } }] });

    await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    expect(posted).toEqual(["first"]);
    expect(await interrupts()).toHaveLength(1);

    const done = await agent.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "Denied by @dana: not now" }] } }), config);
    expect(posted).toEqual(["first"]);
    const denied = done.messages.filter((m) => ToolMessage.isInstance(m) && m.name === "github_comment").at(-1);
    expect(denied?.content).toBe("Denied by @dana: not now");
    expect(await interrupts()).toHaveLength(0);
  });

  it("the task subagent is held to the same policies: an ask tool pauses the whole run, a denied one is refused", async () => {
    const ran: string[] = [];
    const danger = tool(async ({ x }) => (ran.push(x), "ran"), { name: "danger", description: "d", schema: z.object({ x: z.string() }) });
    const gone = tool(async () => (ran.push("gone"), "ran"), { name: "gone", description: "g", schema: z.object({}) });
    const checkpointer = new RedisSaver({ redis: testRedis(), prefix: uniquePrefix() });
    const model = fakeModel()
      .respondWithTools([{ name: "task", args: { description: "do it", subagent_type: "general-purpose" } }])
      .respondWithTools([{ name: "gone", args: {} }])
      .respondWithTools([{ name: "danger", args: { x: "1" } }])
      .respond(new AIMessage("sub done"))
      .respondWithTools([{ name: "confirming_completion", args: { summary: "done" } }]);
    const agent = createOpenSweAgent({
      model,
      systemPrompt: "agent",
      tools: [],
      subagentTools: [danger, gone],
      middleware: stack(),
      checkpointer,
      toolPolicies: { denied: ["gone"], ask: ["danger"] },
    });
    const config = { configurable: { thread_id: "policy-subagent" } };
    const getState = (agent as unknown as { getState(c: unknown): Promise<{ tasks?: Array<{ interrupts?: Array<{ value?: unknown }> }> }> }).getState.bind(agent);
    await agent.invoke({ messages: [new HumanMessage("delegate")] }, config);
    expect(ran).toEqual([]);
    const pending = ((await getState(config)).tasks ?? []).flatMap((t) => t.interrupts ?? []);
    expect(pending.map((i) => i.value)).toMatchObject([{ actionRequests: [{ name: "danger", args: { x: "1" } }] }]);
    await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    expect(ran).toEqual(["1"]);
  });
});
