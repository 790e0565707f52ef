import { describe, expect, it } from "vitest";
import { headInBase } from "../../src/shared/head-in-base.js";

const BASE = { owner: "Octo", repo: "Hello" };

describe("headInBase", () => {
  it.each([
    ["the base repository itself", "octo/hello", true],
    ["the base repository, another case", "OCTO/HELLO", true],
    ["a fork of the same name", "mallory/hello", false],
    ["another repository of the same owner", "octo/hello-fork", false],
    ["a name that only ends like it", "xocto/hello", false],
    ["a deleted fork (GitHub's null)", null, false],
    ["not said (an event without head.repo)", undefined, false],
    ["an empty name", "", false],
  ] as const)("%s → %s", (_n, headRepo, expected) => {
    expect(headInBase(headRepo, BASE)).toBe(expected);
  });
});
