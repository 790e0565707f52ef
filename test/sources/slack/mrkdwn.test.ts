import { describe, expect, it } from "vitest";
import { markdownToMrkdwn, SLACK_TEXT_MAX } from "../../../src/sources/slack/mrkdwn.js";

describe("markdownToMrkdwn", () => {
  it.each([
    ["# Title", "*Title*"],
    ["**bold**, *italic*, _italic_ and ~~gone~~", "*bold*, _italic_, _italic_ and ~gone~"],
    ["- one\n* two **b**", "• one\n• two *b*"],
    ["see [the PR](https://github.com/o/r/pull/1)", "see <https://github.com/o/r/pull/1|the PR>"],
    ["a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"],
    ["```ts\nconst a = 1 < 2; // **not bold**\n```", "```\nconst a = 1 &lt; 2; // **not bold**\n```"],
    ["use `a*b*c` and `<x>`", "use `a*b*c` and `&lt;x&gt;`"],
    ["> quoted **x**", "> quoted *x*"],
    ["thanks @Dana(U012ABC) and @Bo Lee(W99XYZ)", "thanks <@U012ABC> and <@W99XYZ>"],
    ["2 * 3 * 4", "2 * 3 * 4"],
    ["<!channel> hi", "&lt;!channel&gt; hi"],
    // Read by the same lexer as the ADF renderer.
    ["a\r\n\r\nb", "a\n\nb"],
    ["- a\n  - b\n- c", "• a\n  • b\n• c"],
    ["3. c\n4. d", "3. c\n4. d"],
    ["- [x] done\n- [ ] todo", "• ☑ done\n• ☐ todo"],
    ["| a | b |\n|---|---|\n| 1 | <2> |", "```\n| a | b |\n|---|---|\n| 1 | &lt;2&gt; |\n```"],
    ["[x](javascript:alert(1))", "[x](javascript:alert(1))"],
    ["see https://x.test/a_b_c.", "see https://x.test/a_b_c."],
    ["snake_case_name", "snake_case_name"],
  ])("%j → %j", (md, want) => {
    expect(markdownToMrkdwn(md)).toBe(want);
  });

  it("caps the length Slack accepts", () => {
    const out = markdownToMrkdwn("x".repeat(50_000));
    expect(out.length).toBeLessThan(40_000);
    expect(out.startsWith("x".repeat(SLACK_TEXT_MAX))).toBe(true);
    expect(out).toMatch(/shortened\)$/);
  });
});
