import { describe, expect, it } from "vitest";
import { autofixStatusReply, type AutofixStatusFacts } from "../../src/autofix/status-reply.js";

const base: AutofixStatusFacts = { repoEnabled: true, requester: "alice", prToggle: null, requesterAutoFixCi: false, repoDefault: false, attempts: 1, maxAttempts: 3 };

describe("autofixStatusReply: the state and why, first reason wins", () => {
  it.each([
    ["repo not enabled (before everything)", { repoEnabled: false, prToggle: true }, /^CI autofix is \*\*off\*\* here: this repository is not enabled/],
    ["not our PR (before the toggle)", { requester: null, prToggle: true }, /does not apply to this pull request: I did not open it/],
    ["toggle off (before the profile)", { prToggle: false, requesterAutoFixCi: true }, /^CI autofix is \*\*off\*\* for this pull request \(`@open-swe autofix off` was said here.* 1 of 3 fix runs/],
    ["toggle on", { prToggle: true }, /^CI autofix is \*\*on\*\* .*`@open-swe autofix on` was said here/],
    ["the requester's profile (before the repo default)", { requesterAutoFixCi: true, repoDefault: true }, /\*\*on\*\*.*@alice's profile/],
    ["the repo default", { repoDefault: true }, /\*\*on\*\*.*`autofix.default` is true/],
    ["nobody opted in", {}, /^CI autofix is \*\*off\*\* for this pull request: nobody opted in/],
  ] as const)("%s", (_n, patch, expected) => {
    expect(autofixStatusReply({ ...base, ...patch })).toMatch(expected);
  });
});
