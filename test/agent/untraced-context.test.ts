import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { getContextVariable } from "@langchain/core/context";
import { RunnableLambda } from "@langchain/core/runnables";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { getConfig } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { installUntracedContext } from "../../src/agent/untraced-context.js";

const store = () => AsyncLocalStorageProviderSingleton.getInstance().getStore() as Record<string, unknown> | undefined;

describe("installUntracedContext (no tracer configured)", () => {
  installUntracedContext({});

  it("carries the config to nested runnables without building a langsmith RunTree per runnable", async () => {
    const seen: Array<{ runTree: boolean; thread: unknown; fromGetConfig: unknown }> = [];
    const inner = RunnableLambda.from(async () => {
      const s = store();
      seen.push({
        runTree: typeof s?.["postRun"] === "function",
        thread: AsyncLocalStorageProviderSingleton.getRunnableConfig()?.configurable?.["thread_id"],
        fromGetConfig: getConfig()?.configurable?.["thread_id"],
      });
      return "ok";
    });
    const outer = RunnableLambda.from(async (x: string, config) => inner.invoke(x, config));
    expect(await outer.invoke("x", { configurable: { thread_id: "t-1" } })).toBe("ok");
    expect(seen).toEqual([{ runTree: false, thread: "t-1", fromGetConfig: "t-1" }]);
  });

  it("keeps callbacks and context variables working", async () => {
    const starts: string[] = [];
    const handler = BaseCallbackHandler.fromMethods({ handleChainStart: (_c, _i, _id, _p, _t, _m, _type, name) => void starts.push(name ?? "") });
    const { setContextVariable } = await import("@langchain/core/context");
    const read = RunnableLambda.from(async () => getContextVariable("who")).withConfig({ runName: "read" });
    const result = await RunnableLambda.from(async (_x: string, config) => {
      setContextVariable("who", "dana");
      return read.invoke(null, config);
    })
      .withConfig({ runName: "outer" })
      .invoke("x", { callbacks: [handler] });
    expect(result).toBe("dana");
    expect(starts).toEqual(["outer", "read"]);
  });
});
