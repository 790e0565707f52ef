import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import nock from "nock";
import { createOpenSweAgent } from "../src/agent/create-agent.js";
import { buildAgentMiddleware } from "../src/agent/middleware/build-agent-middleware.js";
import { createChatModel } from "../src/agent/model/create-chat-model.js";
import { resolveModelSettings } from "../src/agent/model/resolve-model-settings.js";
import { renderPrompt } from "../src/agent/prompts.js";
import { buildRunRecord, formatRunSummary } from "../src/agent/run-record.js";
import { runTools } from "./run-tools.js";
import { cacheBreakpoints, cachePrefixBytes, type AnthropicBody } from "./tokens-prefix.js";

const round = (n: number) => Number(n.toFixed(3));

/** One Anthropic streaming answer: a single tool call, with usage that reports the cache as the API would. */
function toolUseSse(id: string, name: string, input: object, usage: Record<string, number>): string {
  const events: Array<[string, object]> = [
    [
      "message_start",
      {
        type: "message_start",
        message: { id: `msg_${id}`, type: "message", role: "assistant", model: "claude-sonnet-4-6", content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
      },
    ],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: `toolu_${id}`, name, input: {} } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(input) } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 20 } }],
    ["message_stop", { type: "message_stop" }],
  ];
  return events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}

/** The scripted run: files written and read back in the agent's state, a todo list, then completion. */
function step(i: number, steps: number): [string, object] {
  if (i === steps - 1) return ["confirming_completion", { summary: "done" }];
  if (i === 0)
    return [
      "write_todos",
      {
        todos: [
          { content: "look around", status: "in_progress" },
          { content: "change things", status: "pending" },
        ],
      },
    ];
  if (i % 3 === 1) return ["write_file", { file_path: `/notes/${i}.md`, content: `# note ${i}\n${"a finding about the module\n".repeat(8)}` }];
  if (i % 3 === 2) return ["read_file", { file_path: `/notes/${i - 1}.md` }];
  return ["ls", { path: "/notes" }];
}

interface RunCapture {
  bodies: string[];
  messages: BaseMessage[];
}

async function run(task: string, steps: number, thread: string, n: number): Promise<RunCapture> {
  const bodies: string[] = [];
  const scope = nock("https://api.anthropic.com")
    .post("/v1/messages")
    .times(steps)
    .reply(
      200,
      (_uri, body) => {
        const raw = typeof body === "string" ? body : JSON.stringify(body);
        bodies.push(raw);
        const n = bodies.length - 1;
        const prev = n > 0 ? cachePrefixBytes(JSON.parse(bodies[n - 1]!) as AnthropicBody, JSON.parse(raw) as AnthropicBody) : { prefix: 0, total: raw.length };
        // ~4 bytes a token: what a provider would read from its cache vs write or read fresh.
        const total = Math.round(prev.total / 4);
        const read = Math.round(prev.prefix / 4);
        const [name, args] = step(n, steps);
        return toolUseSse(`${thread}${n}`, name, args, { input_tokens: total - read, cache_read_input_tokens: read, cache_creation_input_tokens: 0 });
      },
      { "content-type": "text/event-stream" },
    );
  const model = await createChatModel(resolveModelSettings({ thread: { modelId: "claude-sonnet-4-6", effort: "none" } }), { anthropicApiKey: "sk-bench" });
  const agent = createOpenSweAgent({
    model,
    systemPrompt: renderPrompt("agent", { repo: "acme/widgets", workspace_root: "/", default_branch: "main" }),
    tools: runTools(n), // the run's own tools, for its thread, branch and run id
    middleware: buildAgentMiddleware({ modelCallLimit: steps + 5, workspaceRoot: "/", readWorkspaceFile: async () => undefined, drainFollowUps: async () => [], notifyStepLimit: async () => {} }),
  });
  const out = await agent.invoke({ messages: [new HumanMessage(task)] }, { configurable: { thread_id: thread }, recursionLimit: 10_000 });
  if (!scope.isDone()) throw new Error(`the run made ${bodies.length} of ${steps} model calls`);
  return { bodies, messages: out.messages as BaseMessage[] };
}

/**
 * `npm run bench:tokens`: the requests the real `@langchain/anthropic` client sends over a scripted
 * run (the Anthropic API nock'd): cache breakpoints per request, the share of each request's input bytes
 * in a prefix byte-identical to the previous request's (in the provider's cache order: tools, system,
 * messages; cache_control markers aside), and whether a second run on the same repository sends the
 * same tools and system prompt byte for byte. Then the run record's footer, with cached tokens apart.
 */
export async function main(argv: string[]): Promise<void> {
  const stepsAt = argv.indexOf("--steps");
  const steps = stepsAt >= 0 ? Number(argv[stepsAt + 1]) : 20;
  nock.disableNetConnect();
  try {
    const first = await run("survey the notes and write down what you find", steps, "bench-a", 1);
    const second = await run("a different task on the same repository", 3, "bench-b", 2);
    const parsed = first.bodies.map((b) => JSON.parse(b) as AnthropicBody);
    let prefix = 0;
    let total = 0;
    const shares: number[] = [];
    for (let i = 1; i < parsed.length; i++) {
      const p = cachePrefixBytes(parsed[i - 1]!, parsed[i]!);
      prefix += p.prefix;
      total += p.total;
      shares.push(p.prefix / p.total);
    }
    const breakpoints = parsed.map(cacheBreakpoints);
    const a = JSON.parse(first.bodies[0]!) as AnthropicBody;
    const b = JSON.parse(second.bodies[0]!) as AnthropicBody;
    const sameTools = JSON.stringify(a.tools) === JSON.stringify(b.tools);
    const sameSystem = JSON.stringify(a.system) === JSON.stringify(b.system);
    // The second run's first request against the first run's: how much of it a warm cache would serve.
    const across = cachePrefixBytes(a, b);
    const record = buildRunRecord({
      threadId: "bench-a",
      trigger: "bench",
      settings: { modelId: "anthropic:claude-sonnet-4-6", effort: "none", provider: "anthropic" },
      messages: first.messages,
      startedAt: new Date(0),
      finishedAt: new Date(60_000),
    });
    const figures = {
      bench: "tokens",
      calls: parsed.length,
      cacheBreakpointsMin: Math.min(...breakpoints),
      cacheBreakpointsMax: Math.max(...breakpoints),
      cacheablePrefixShare: round(prefix / total),
      cacheablePrefixShareMin: round(Math.min(...shares)),
      secondRunSameTools: sameTools,
      secondRunSameSystem: sameSystem,
      secondRunPrefixShare: round(across.prefix / across.total),
      record: { inputTokens: record.inputTokens, cachedTokens: record.cachedTokens, costUsd: record.costUsd ?? null },
    };
    console.log(`${parsed.length} requests; cache breakpoints per request ${figures.cacheBreakpointsMin}–${figures.cacheBreakpointsMax}`);
    console.log(
      `input bytes in a prefix identical to the previous request: ${(100 * figures.cacheablePrefixShare).toFixed(1)}% overall, lowest ${(100 * figures.cacheablePrefixShareMin).toFixed(1)}%`,
    );
    console.log(
      `second run on the same repository: tools ${sameTools ? "identical" : "DIFFER"}, system prompt ${sameSystem ? "identical" : "DIFFERS"}; ${(100 * figures.secondRunPrefixShare).toFixed(1)}% of its first request in the first run's prefix`,
    );
    console.log(`footer: ${formatRunSummary(record)}`);
    console.log(JSON.stringify(figures));
  } finally {
    nock.cleanAll();
    nock.enableNetConnect();
  }
}
