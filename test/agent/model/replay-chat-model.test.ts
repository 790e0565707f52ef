import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tool } from "langchain";
import { createAgent } from "langchain";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createChatModel } from "../../../src/agent/model/create-chat-model.js";
import { ReplayChatModel, parseReplayScript } from "../../../src/agent/model/replay-chat-model.js";
import { resolveModelSettings } from "../../../src/agent/model/resolve-model-settings.js";
import { OpenSweError } from "../../../src/errors.js";

function scriptFile(content: string): string {
  const dir = mkdtempSync(join(tmpdir(), "replay-"));
  const file = join(dir, "run.json");
  writeFileSync(file, content);
  return file;
}

describe("replay model", () => {
  it("drives an agent through recorded tool calls and marks every turn as replayed", async () => {
    const calls: string[] = [];
    const echo = tool(
      async ({ text }) => {
        calls.push(text);
        return `echoed ${text}`;
      },
      { name: "echo", description: "echo text", schema: z.object({ text: z.string() }) },
    );
    const file = scriptFile(
      JSON.stringify([
        { text: "", tool_calls: [{ name: "echo", args: { text: "one" } }], usage: { input_tokens: 10, output_tokens: 2 } },
        { tool_calls: [{ name: "echo", args: { text: "two" }, id: "call-2" }] },
        { text: "done" },
      ]),
    );
    const settings = resolveModelSettings({ deployment: { modelId: `replay:${file}` } });
    const model = await createChatModel(settings, {});
    expect(model).toBeInstanceOf(ReplayChatModel);

    const agent = createAgent({ model, tools: [echo] });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(calls).toEqual(["one", "two"]);
    const ai = result.messages.filter((m) => AIMessage.isInstance(m));
    expect(ai.map((m) => m.response_metadata["replayed"])).toEqual([true, true, true]);
    expect(ai.at(-1)?.text).toBe("done");
    expect(result.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => m.tool_call_id)).toContain("call-2");
    expect((ai[0] as unknown as { usage_metadata?: { input_tokens: number } }).usage_metadata?.input_tokens).toBe(10);
    expect((model as ReplayChatModel).remaining).toBe(0);
  });

  it("throws replay_exhausted when the run asks for more turns than recorded", async () => {
    const model = new ReplayChatModel(parseReplayScript([{ text: "only" }], "inline"), "inline");
    await model.invoke([new HumanMessage("a")]);
    const err = await model.invoke([new HumanMessage("b")]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenSweError);
    expect((err as OpenSweError).code).toBe("replay_exhausted");
    expect((err as Error).message).toMatch(/turn 2 but the script has 1/);
  });

  it("shares the cursor with tool-bound copies", async () => {
    const model = new ReplayChatModel(parseReplayScript([{ text: "a" }, { text: "b" }], "inline"));
    await model.bindTools([]).invoke([new HumanMessage("x")]);
    expect((await model.invoke([new HumanMessage("y")])).text).toBe("b");
  });

  it("a turn with wait_for_file answers only once the file exists, and gives up when the call is aborted", async () => {
    const gate = join(mkdtempSync(join(tmpdir(), "replay-gate-")), "open");
    const model = new ReplayChatModel(
      parseReplayScript(
        [
          { text: "a", wait_for_file: gate },
          { text: "b", wait_for_file: gate },
        ],
        "inline",
      ),
    );
    let answered = false;
    const first = model.invoke([new HumanMessage("x")]).then((m) => ((answered = true), m.text));
    // The model polls for the file: several polls pass before the test opens the gate.
    await new Promise((r) => setTimeout(r, 200));
    expect(answered).toBe(false);
    writeFileSync(gate, "");
    expect(await first).toBe("a");
    const held = new ReplayChatModel(parseReplayScript([{ text: "never", wait_for_file: join(gate, "..", "shut") }], "inline"));
    const abort = new AbortController();
    const waiting = held.invoke([new HumanMessage("y")], { signal: abort.signal });
    abort.abort("job lock lost");
    await expect(waiting).rejects.toThrow();
  });

  it.each([
    ["not a list", { turns: [] }, /\(root\)/],
    ["an empty list", [], /\(root\)/],
    ["a turn with neither text nor tool calls", [{ text: "" }], /0: a turn needs text/],
    ["a tool call without a name", [{ tool_calls: [{ args: {} }] }], /0\.tool_calls\.0\.name/],
    ["an unknown field", [{ text: "x", tools: [] }], /0/],
  ])("rejects a script that is %s", (_name, json, where) => {
    let caught: unknown;
    try {
      parseReplayScript(json, "s.json");
    } catch (err) {
      caught = err;
    }
    expect((caught as OpenSweError).code).toBe("replay_invalid");
    expect((caught as Error).message).toMatch(where);
  });

  it("fails with replay_invalid on a missing or non-JSON file", async () => {
    const missing = resolveModelSettings({ deployment: { modelId: "replay:/nonexistent/run.json" } });
    await expect(createChatModel(missing, {})).rejects.toMatchObject({ code: "replay_invalid" });
    const garbage = resolveModelSettings({ deployment: { modelId: `replay:${scriptFile("{not json")}` } });
    await expect(createChatModel(garbage, {})).rejects.toMatchObject({ code: "replay_invalid", message: /not JSON/ });
  });
});
