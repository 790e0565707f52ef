import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { PendingWrite } from "@langchain/langgraph-checkpoint";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { RedisSaver } from "../../../src/agent/checkpoint/redis-saver.js";
import { idempotentToolCallsMiddleware } from "../../../src/agent/middleware/idempotent-tool-calls.js";
import { testRedis, uniquePrefix } from "../../helpers/redis.js";

/** A worker's saver that goes down for good right after the tool ran: nothing of that step reaches Redis. */
class DyingSaver extends RedisSaver {
  dead = false;
  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    if (writes.some(([, v]) => Array.isArray(v) && v.some((m) => ToolMessage.isInstance(m)))) this.dead = true;
    if (this.dead) throw new Error("worker killed");
    return super.putWrites(config, writes, taskId, taskPath);
  }
  override async put(...args: Parameters<RedisSaver["put"]>) {
    if (this.dead) throw new Error("worker killed");
    return super.put(...args);
  }
}

function scenario(withMiddleware: boolean) {
  const redis = testRedis();
  const prefix = uniquePrefix();
  const posted: string[] = [];
  const comment = tool(
    async ({ body }) => {
      posted.push(body);
      return "comment 1 posted";
    },
    { name: "github_comment", description: "comment", schema: z.object({ body: z.string() }) },
  );
  const middleware = withMiddleware ? [idempotentToolCallsMiddleware({ redis, prefix: `${prefix}:idem`, tools: ["github_comment"] })] : [];
  const config = { configurable: { thread_id: "t-crash" }, durability: "sync" as const };
  // Worker 1 runs the model and the tool, then dies before the step is saved.
  const worker1 = createAgent({
    model: fakeModel().respondWithTools([{ name: "github_comment", args: { body: "PR ready" }, id: "call-1" }]),
    tools: [comment],
    middleware,
    checkpointer: new DyingSaver({ redis, prefix }),
  });
  // Worker 2 picks the job up from the last checkpoint.
  const worker2 = createAgent({ model: fakeModel().respond(new AIMessage("done")), tools: [comment], middleware, checkpointer: new RedisSaver({ redis, prefix }) });
  return { worker1, worker2, config, posted };
}

describe("idempotentToolCallsMiddleware", () => {
  it("a run resumed by another worker after a crash mid-step does not post the comment twice", async () => {
    const { worker1, worker2, config, posted } = scenario(true);
    await expect(worker1.invoke({ messages: [new HumanMessage("reply")] }, config)).rejects.toThrow("worker killed");
    const resumed = await worker2.invoke(null, config);
    expect(posted).toEqual(["PR ready"]);
    expect(resumed.messages.at(-1)?.text).toBe("done");
    expect(resumed.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => m.text)).toEqual(["comment 1 posted"]);
  });

  it("without it, the same crash posts twice (the scenario is real)", async () => {
    const { worker1, worker2, config, posted } = scenario(false);
    await expect(worker1.invoke({ messages: [new HumanMessage("reply")] }, config)).rejects.toThrow("worker killed");
    await worker2.invoke(null, config);
    expect(posted).toEqual(["PR ready", "PR ready"]);
  });
});
