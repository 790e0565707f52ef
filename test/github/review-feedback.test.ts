import { describe, expect, it } from "vitest";
import { isReviewFeedback } from "../../src/github/review-feedback.js";

const HANDLES = ["open-swe", "openswe"];

describe("isReviewFeedback (pure)", () => {
  it.each<[string, string, string | null, boolean]>([
    ["changes requested, any body", "changes_requested", "", true],
    ["changes requested, no body", "CHANGES_REQUESTED", null, true],
    ["a comment asking for a rename", "commented", "Please rename `foo` to `bar`.", true],
    ["a comment with a question", "commented", "Why not reuse the helper here?", true],
    ["a comment: should", "commented", "This should handle the empty list.", true],
    ["a nit", "commented", "nit: trailing whitespace", true],
    ["an empty comment review (line comments only)", "commented", "", false],
    ["whitespace only", "commented", "  \n ", false],
    ["praise", "commented", "LGTM 👍", false],
    ["thanks", "commented", "Thanks!", false],
    ["a mention is a command, not feedback", "commented", "@open-swe please fix the lint", false],
    ["changes requested with a command: the command runs, no second run as feedback", "changes_requested", "@open-swe rename `x` to `count`", false],
    ["a request only inside a quote", "commented", "> please rename this\n\nAgreed.", false],
    ["a request only in a code block", "commented", "```\nplease fix\n```", false],
    ["an approval with praise", "approved", "Looks good to me!", false],
    ["an approval with one weak cue", "approved", "Nice, tested it locally", false],
    ["an approval that still asks for a change", "approved", "Approving, but please rename `x` before merging.", true],
    ["a dismissed review", "dismissed", "please change it", false],
    ["pending (not submitted)", "pending", "please change it", false],
  ])("%s", (_n, state, body, want) => expect(isReviewFeedback({ state, body }, HANDLES)).toBe(want));
});
