import { HumanMessage } from "@langchain/core/messages";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { RedisSaver } from "../../../../src/agent/checkpoint/redis-saver.js";
import { createOpenSweAgent } from "../../../../src/agent/create-agent.js";
import { buildAgentMiddleware } from "../../../../src/agent/middleware/build-agent-middleware.js";
import { createChatModel } from "../../../../src/agent/model/create-chat-model.js";
import { modelProvider } from "../../../../src/agent/model/providers/registry.js";
import { resolveModelSettings } from "../../../../src/agent/model/resolve-model-settings.js";
import { buildRunRecord, formatRunSummary } from "../../../../src/agent/run-record.js";
import type { ModelConfig } from "../../../../src/config/model-config.js";
import type { ModelPrice, Provider } from "../../../../src/config/model-table.js";
import { testRedis, uniquePrefix } from "../../../helpers/redis.js";
import type { WireTurn } from "./wire/turn.js";

/** A provider under the conformance suite: how to reach it, what it costs, and its HTTP encoding mocked with nock. */
export interface ProviderFixture {
  provider: Provider;
  modelId: string;
  config: () => Promise<ModelConfig> | ModelConfig;
  /** The provider's published price for the model (USD per million tokens): the oracle for the accounting line. */
  price: ModelPrice;
  /** Does the provider report cache writes (Anthropic-style), or only cache reads? */
  reportsCacheWrite: boolean;
  /**
   * Mocks the provider's endpoint answering `turns` in order, each exchange encoded as the provider's HTTP
   * (typed by its SDK); every request's decoded body is pushed onto `requests`.
   */
  mock(turns: readonly WireTurn[], requests: unknown[]): void;
  /** What every request of this provider must carry (auth aside): cache points, thinking, the tools. */
  checkRequest?(body: unknown): void;
}

function stack() {
  return buildAgentMiddleware({ modelCallLimit: 20, workspaceRoot: "/", readWorkspaceFile: async () => undefined, drainFollowUps: async () => [], notifyStepLimit: async () => {} });
}

const SYSTEM = "You are Open SWE. Reply on the issue with github_comment, then call confirming_completion.";

/**
 * One conformance suite for every model provider: a real agent run (deepagents, our middleware, Redis
 * checkpoints) through the provider's HTTP encoding — a tool call whose result goes back in the next
 * request, the reply, a follow-up on the same thread that carries the history, and the accounting line
 * (tokens, cached tokens at the provider's cache price, USD).
 */
export function describeModelProviderConformance(f: ProviderFixture): void {
  describe(`model provider ${f.provider} (${f.modelId})`, () => {
    it("is the registry's member for its prefix", () => {
      expect(modelProvider(f.provider).id).toBe(f.provider);
      expect(f.modelId.startsWith(`${f.provider}:`)).toBe(true);
    });

    it("runs the agent: a tool call, its result sent back, the reply, a follow-up, and the accounting line", async () => {
      const usage = { input: 1_200, cacheRead: 2_400, cacheWrite: f.reportsCacheWrite ? 600 : 0, output: 80 };
      const turns: WireTurn[] = [
        { toolCall: { id: "call_reply_1", name: "github_comment", args: { body: "Done: first" } }, usage },
        { toolCall: { id: "call_done_1", name: "confirming_completion", args: { summary: "replied" } }, usage },
        { text: "Still here, and I remember the first task.", usage },
        { toolCall: { id: "call_done_2", name: "confirming_completion", args: { summary: "answered the follow-up" } }, usage },
      ];
      const requests: unknown[] = [];
      f.mock(turns, requests);

      const replies: string[] = [];
      const githubComment = tool(
        async ({ body }) => {
          replies.push(body);
          return "comment posted: https://github.com/o/r/issues/4#issuecomment-1";
        },
        { name: "github_comment", description: "Reply on the issue", schema: z.object({ body: z.string() }) },
      );
      const settings = resolveModelSettings({ thread: { modelId: f.modelId } });
      expect(settings.provider).toBe(f.provider);
      const model = await createChatModel(settings, await f.config());
      const checkpointer = new RedisSaver({ redis: testRedis(), prefix: uniquePrefix() });
      const agent = () => createOpenSweAgent({ model, systemPrompt: SYSTEM, tools: [githubComment], middleware: stack(), checkpointer });
      const config = { configurable: { thread_id: `conformance-${f.provider}` } };

      const startedAt = new Date();
      const first = await agent().invoke({ messages: [new HumanMessage("first task: say done")] }, config);
      expect(replies).toEqual(["Done: first"]);
      const second = await agent().invoke({ messages: [new HumanMessage("a follow-up: are you there?")] }, config);
      expect(second.messages.map((m) => m.text)).toContain("Still here, and I remember the first task.");

      expect(requests).toHaveLength(4);
      for (const body of requests) {
        expect(JSON.stringify(body)).toContain("github_comment");
        f.checkRequest?.(body);
      }
      // The tool's result goes back to the model; the follow-up carries the thread's history.
      expect(JSON.stringify(requests[1])).toContain("comment posted");
      expect(JSON.stringify(requests[2])).toContain("first task: say done");
      expect(JSON.stringify(requests[2])).toContain("a follow-up: are you there?");

      const record = buildRunRecord({ threadId: "t", trigger: "cli", settings, messages: first.messages, startedAt, finishedAt: new Date() });
      const perTurnIn = usage.input + usage.cacheRead + usage.cacheWrite;
      const usd = (2 * (usage.input * f.price.input + usage.cacheRead * f.price.cacheRead + usage.cacheWrite * f.price.cacheWrite + usage.output * f.price.output)) / 1_000_000;
      expect(record).toMatchObject({ modelCalls: 2, inputTokens: 2 * perTurnIn, cachedTokens: 2 * usage.cacheRead, cacheWriteTokens: 2 * usage.cacheWrite, outputTokens: 160 });
      expect(record.costUsd).toBeCloseTo(usd, 6);
      const name = f.modelId.slice(f.modelId.indexOf(":") + 1);
      expect(formatRunSummary(record).startsWith(`${name} · 2 calls · ${((2 * perTurnIn) / 1000).toFixed(1)}k in (4.8k cached) / 160 out · $${usd.toFixed(4)} · `)).toBe(true);
    });
  });
}
