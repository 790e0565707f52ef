import { describe, expect, it } from "vitest";
import { failedCheckRunDelivery, issueCommentPayload } from "../helpers/github-app.js";
import { checkWebhook } from "./github-webhooks.js";

describe("GitHub's webhook descriptions as the contract of a delivery fixture", () => {
  const comment = issueCommentPayload({ installationId: 1, number: 3, issueId: 30, commentId: 300, body: "@open-swe hi" });
  it.each([
    ["an issue comment as the helper builds it", "issue_comment", comment, []],
    ["a red check run as the helper builds it", "check_run", failedCheckRunDelivery({ installationId: 1, checkRunId: 2, name: "ci", headSha: "a".repeat(40), branch: "b", pr: 3 }).payload, []],
    ["a push (no action)", "push", { ref: "refs/heads/main", after: "b".repeat(40), installation: { id: 1 } }, []],
    [
      "a field of the wrong type",
      "issue_comment",
      { ...comment, comment: { ...comment.comment, id: "300" } },
      ["webhook issue_comment.created (issue-comment-created): payload $/comment/id must be integer"],
    ],
    ["an action the event does not have", "issue_comment", { ...comment, action: "exploded" }, ["webhook issue_comment.exploded: no such event and action in GitHub's webhook descriptions"]],
    ["an event GitHub does not send", "pull_request_party", { action: "opened" }, ["webhook pull_request_party.opened: no such event and action in GitHub's webhook descriptions"]],
  ])("%s", (_name, event, payload, expected) => {
    expect(checkWebhook(event, payload)).toEqual(expected);
  });
});
