import { Send } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { LIST_MARK, joinLists, splitLists } from "../../../src/agent/checkpoint/split-lists.js";

// A store that keeps lists in memory and answers with their index, splitting elements like the saver does.
function memoryStore() {
  const lists: object[][] = [];
  const store = async (list: object[], depth: number): Promise<unknown> => {
    const elements = await Promise.all(list.map((e) => (depth > 0 ? splitLists(e, store, depth - 1) : e)));
    lists.push(elements as object[]);
    return lists.length - 1;
  };
  const load = async (ref: unknown, depth: number): Promise<unknown[]> => {
    const elements = structuredClone(lists[ref as number]!);
    return depth > 0 ? Promise.all(elements.map((e) => joinLists(e, load, depth - 1))) : elements;
  };
  return { lists, store, load };
}

describe("splitLists / joinLists", () => {
  const msg = (id: string) => ({ lc: 1, type: "constructor", id: ["m"], kwargs: { id } });
  it.each([
    ["a message list", [msg("a"), msg("b")], 1],
    ["a state update", { messages: [msg("a")], count: 3 }, 1],
    ["a Send-shaped packet list", [{ node: "tools", args: { messages: [msg("a"), msg("b")], lg_tool_call: { id: "c" } } }], 2],
    ["primitives and empty lists, untouched", { a: [1, 2], b: [], c: "s", d: null }, 0],
    ["a list of objects five levels down, untouched", { a: { b: { c: { d: [msg("a")] } } } }, 0],
  ])("%s round-trips", async (_name, value, expectedLists) => {
    const { lists, store, load } = memoryStore();
    const split = await splitLists(value, store);
    expect(lists).toHaveLength(expectedLists);
    expect(await joinLists(structuredClone(split), load)).toEqual(value);
  });

  it("splits a Send instance into the shape the serializer writes for it", async () => {
    const { store } = memoryStore();
    const split = await splitLists(new Send("tools", { messages: [msg("a")] }), store);
    expect(split).toEqual({ node: "tools", args: { messages: { [LIST_MARK]: 0 } } });
  });

  it("never mutates its input", async () => {
    const { store } = memoryStore();
    const value = { messages: [msg("a")] };
    await splitLists(value, store);
    expect(value).toEqual({ messages: [msg("a")] });
  });
});
