import { describe, expect, it } from "vitest";
import { holderIsDeadHere } from "../../src/worker/host-presence.js";

describe("holderIsDeadHere (pure): may this instance take the host's sandbox directory over at once?", () => {
  const alive = new Set([100]);
  it.each([
    ["a dead pid of this machine and boot", "box/abcd1234/200", true],
    ["a live pid of this machine and boot", "box/abcd1234/100", false],
    ["another machine (a container on the same volume)", "other/abcd1234/200", false],
    ["this machine before a reboot (its claim lapses instead)", "box/ffff0000/200", false],
    ["a malformed holder", "garbage", false],
  ])("%s", (_name, holder, expected) => {
    expect(holderIsDeadHere(holder, "box/abcd1234/300", (pid) => alive.has(pid))).toBe(expected);
  });
});
