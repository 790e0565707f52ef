import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { followUpQueueMiddleware } from "../../../src/agent/middleware/follow-up-queue.js";
import { testRedis, uniquePrefix } from "../../helpers/redis.js";

describe("followUpQueueMiddleware", () => {
  it("injects a follow-up that arrived mid-run before the next model call", async () => {
    const redis = testRedis();
    const key = `${uniquePrefix()}:followups`;
    // A stand-in for the integrator's Redis-backed queue: LPUSH on arrival, drain atomically.
    const drainFollowUps = async (threadId: string): Promise<string[]> => {
      const [[, items]] = (await redis.multi().lrange(`${key}:${threadId}`, 0, -1).del(`${key}:${threadId}`).exec()) as [[null, string[]]];
      return items.reverse();
    };
    const slow = tool(
      async () => {
        await redis.lpush(`${key}:thread-1`, "also update the README");
        return "built";
      },
      { name: "execute", description: "run", schema: z.object({ command: z.string() }) },
    );
    const model = fakeModel()
      .respondWithTools([{ name: "execute", args: { command: "npm run build" } }])
      .respond((messages: BaseMessage[]) => {
        const last = messages.at(-1);
        return new AIMessage(HumanMessage.isInstance(last) ? `saw: ${last.text}` : "no follow-up");
      });
    const agent = createAgent({ model, tools: [slow], middleware: [followUpQueueMiddleware({ drainFollowUps })] });
    const result = await agent.invoke({ messages: [new HumanMessage("build it")] }, { configurable: { thread_id: "thread-1" } });
    expect(result.messages.at(-1)?.text).toBe("saw: also update the README");
    const injected = result.messages.filter((m) => HumanMessage.isInstance(m));
    expect(injected.map((m) => m.text)).toEqual(["build it", "also update the README"]);
    expect(injected[1]?.additional_kwargs["follow_up"]).toBe(true);
    expect(await redis.llen(`${key}:thread-1`)).toBe(0);
  });

  it("keeps the run going when the queue is down", async () => {
    const model = fakeModel().respond(new AIMessage("fine"));
    const agent = createAgent({
      model,
      tools: [],
      middleware: [followUpQueueMiddleware({ threadId: "t", drainFollowUps: async () => Promise.reject(new Error("redis down")) })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("hi")] });
    expect(result.messages.at(-1)?.text).toBe("fine");
  });
});
