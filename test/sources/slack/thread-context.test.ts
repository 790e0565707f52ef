import { describe, expect, it } from "vitest";
import { threadContext } from "../../../src/sources/slack/thread-context.js";

const msg = (ts: number, user: string, text: string) => ({ ts: `${ts}.000100`, user, text });

describe("threadContext: since the previous mention, newest 500, bounded characters", () => {
  it("starts after the previous mention of the bot and stops before the request", () => {
    const messages = [msg(1, "U1", "old talk"), msg(2, "U1", "<@UBOT> first ask"), msg(3, "U2", "an idea"), msg(4, "U1", "another"), msg(5, "U1", "<@UBOT> now do it"), msg(6, "U2", "later")];
    expect(threadContext(messages, "5.000100", "UBOT")).toBe("<@U2>: an idea\n<@U1>: another");
  });

  it("from the thread's start when nobody mentioned us before; nothing when there is nothing", () => {
    expect(threadContext([msg(1, "U1", "a"), msg(2, "U2", "b")], "3.0", "UBOT")).toBe("<@U1>: a\n<@U2>: b");
    expect(threadContext([msg(3, "U1", "me")], "3.000100", "UBOT")).toBeUndefined();
  });

  it("keeps the newest 500 messages and the newest that fit the character bound", () => {
    const many = Array.from({ length: 800 }, (_, i) => msg(i + 1, "U1", `m${i + 1}`));
    const ctx = threadContext(many, "9999", "UBOT", 1_000_000)!.split("\n");
    expect(ctx).toHaveLength(500);
    expect(ctx[0]).toBe("<@U1>: m301");
    const small = threadContext(many, "9999", "UBOT", 60)!.split("\n");
    expect(small.at(-1)).toBe("<@U1>: m800");
    expect(small[0]).toBe("(earlier messages left out)");
  });
});
