import { describe, expect, it } from "vitest";
import { chooseRepo, repoFromText } from "../../src/sources/resolve-repo.js";

describe("repoFromText", () => {
  it.each([
    ["please fix the flake repo:Octo/Hello", "octo/hello"],
    ["repo:octo/hello.js.", "octo/hello.js"],
    ["see https://github.com/octo/hello/issues/3 for details", "octo/hello"],
    ["clone <https://github.com/octo/hello.git|the repo>", "octo/hello"],
    ["(repo:octo/hello)", "octo/hello"],
    ["repo:octo/hello and https://github.com/other/thing", "octo/hello"],
    ["myrepo:octo/hello is not a token", null],
    ["repo:../etc", null],
    ["repo:octo/..", null],
    ["https://github.com/octo", null],
    ["https://gitlab.com/octo/hello", null],
    ["nothing here", null],
  ])("%s → %s", (text, want) => {
    expect(repoFromText(text)).toBe(want);
  });
});

describe("chooseRepo: text › thread › default › ask", () => {
  it.each([
    [
      { text: "repo:a/b", remembered: "c/d", channelDefault: "e/f" },
      { repo: "a/b", via: "text" },
    ],
    [
      { text: "do it", remembered: "C/D", channelDefault: "e/f" },
      { repo: "c/d", via: "thread" },
    ],
    [
      { text: "do it", remembered: null, channelDefault: "e/f" },
      { repo: "e/f", via: "default" },
    ],
    [{ text: "do it", remembered: null, channelDefault: null }, null],
  ] as const)("%o", (facts, want) => {
    expect(chooseRepo(facts)).toEqual(want);
  });
});
