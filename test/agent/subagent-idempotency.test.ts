import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { PendingWrite } from "@langchain/langgraph-checkpoint";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { createOpenSweAgent } from "../../src/agent/create-agent.js";
import { buildAgentMiddleware, buildSubagentMiddleware, type AgentMiddlewareDeps } from "../../src/agent/middleware/build-agent-middleware.js";
import { RunMeter } from "../../src/agent/run-meter.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

/** A worker's saver that goes down for good once `dead` is set: nothing after that reaches Redis. */
class DyingSaver extends RedisSaver {
  dead = false;
  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    if (this.dead) throw new Error("worker killed");
    return super.putWrites(config, writes, taskId, taskPath);
  }
  override async put(...args: Parameters<RedisSaver["put"]>) {
    if (this.dead) throw new Error("worker killed");
    return super.put(...args);
  }
}

const turn = (name: string, args: Record<string, unknown>, id: string) => new AIMessage({ content: "", tool_calls: [{ name, args, id, type: "tool_call" }] });

/**
 * A subagent that comments (a file agent may list `github_comment`) on a worker that dies before the
 * parent's `task` step is saved: the resumed run re-runs the subagent from its start, and the stack
 * `buildSubagentMiddleware` gives it must answer the replayed comment from Redis instead of posting again.
 */
describe("idempotent tool calls inside the task subagent", () => {
  it("a worker that dies mid-subagent after a comment: the resumed run does not post it twice", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const posted: string[] = [];
    const saver = new DyingSaver({ redis, prefix: `${prefix}:ckpt` });
    // The worker dies right after the subagent's comment went out.
    const comment = tool(async ({ body }) => (posted.push(body), (saver.dead = true), "comment 7 posted"), { name: "github_comment", description: "comment", schema: z.object({ body: z.string() }) });
    const agent = (model: ReturnType<typeof fakeModel>, checkpointer: RedisSaver) => {
      const deps: AgentMiddlewareDeps & { meter: RunMeter } = {
        modelCallLimit: 20,
        workspaceRoot: "/",
        readWorkspaceFile: async () => undefined,
        drainFollowUps: async () => [],
        notifyStepLimit: async () => {},
        meter: new RunMeter(),
        idempotency: { redis, prefix: `${prefix}:idem` },
      };
      return createOpenSweAgent({
        model,
        systemPrompt: "s",
        tools: [],
        subagentTools: [comment],
        middleware: buildAgentMiddleware(deps),
        subagentMiddleware: buildSubagentMiddleware(deps),
        checkpointer,
      });
    };
    const config = { configurable: { thread_id: "t-sub" }, durability: "sync" as const };
    // deepagents' general-purpose subagent plays the parent's model: one script for both.
    const first = fakeModel()
      .respond(turn("task", { description: "tell them", subagent_type: "general-purpose" }, "task-1"))
      .respond(turn("github_comment", { body: "PR ready" }, "sub-comment-1"))
      .respond(new AIMessage("told them"))
      .respond(turn("confirming_completion", { summary: "done" }, "c"));
    await expect(agent(first, saver).invoke({ messages: [new HumanMessage("go")] }, config)).rejects.toThrow("worker killed");
    expect(posted).toEqual(["PR ready"]);
    const second = fakeModel()
      .respond(turn("github_comment", { body: "PR ready" }, "sub-comment-1"))
      .respond(new AIMessage("told them"))
      .respond(turn("confirming_completion", { summary: "done" }, "c"));
    await agent(second, new RedisSaver({ redis, prefix: `${prefix}:ckpt` })).invoke(null, config);
    expect(posted).toEqual(["PR ready"]);
  });
});
