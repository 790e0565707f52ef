import { describe, expect, it } from "vitest";
import { RUN_REPLY_TOOLS, RUN_SIDE_EFFECT_TOOLS } from "../../src/runs/run-tool-names.js";
import { SOURCE_NAMES } from "../../src/sources/source.js";
import { SOURCE_TOOL_NAMES } from "../../src/sources/registry.js";

describe("a run's reply and side-effect tools", () => {
  it("are GitHub's and the host's, plus what each source declares in its registry entry", () => {
    expect([...RUN_REPLY_TOOLS].sort()).toEqual(["confluence_comment", "github_comment", "jira_comment", "linear_comment", "slack_thread_reply"]);
    expect([...RUN_SIDE_EFFECT_TOOLS].sort()).toEqual(
      [
        "commit_and_push",
        "confluence_comment",
        "confluence_create_page",
        "confluence_update_page",
        "github_comment",
        "jira_comment",
        "jira_create_issue",
        "jira_update_issue",
        "linear_comment",
        "linear_create_issue",
        "linear_delete_issue",
        "linear_update_issue",
        "open_or_update_pull_request",
        "request_pr_review",
        "schedule_thread_wakeup",
        "slack_thread_reply",
      ].sort(),
    );
  });

  it("every source has an entry, and a reply tool is also a side effect", () => {
    expect(Object.keys(SOURCE_TOOL_NAMES).sort()).toEqual([...SOURCE_NAMES].sort());
    for (const name of RUN_REPLY_TOOLS) expect(RUN_SIDE_EFFECT_TOOLS).toContain(name);
  });
});
