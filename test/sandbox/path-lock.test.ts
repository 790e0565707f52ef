import { describe, expect, it } from "vitest";
import { withPathLock } from "../../src/sandbox/path-lock.js";

describe("withPathLock", () => {
  it("runs calls with one key one at a time, in order, through failures; other keys run alongside", async () => {
    const log: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const step =
      (name: string, fail = false) =>
      async () => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        log.push(`start ${name}`);
        await new Promise((r) => setTimeout(r, 5));
        log.push(`end ${name}`);
        inFlight -= 1;
        if (fail) throw new Error(name);
        return name;
      };
    const a = withPathLock("k", step("a"));
    const b = withPathLock("k", step("b", true));
    const c = withPathLock("k", step("c"));
    let other = false;
    const d = withPathLock("other", async () => {
      other = log.length < 2;
      return "d";
    });
    expect(await a).toBe("a");
    await expect(b).rejects.toThrow("b");
    expect(await c).toBe("c");
    expect(await d).toBe("d");
    expect(other).toBe(true);
    expect(maxInFlight).toBe(1);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });
});
