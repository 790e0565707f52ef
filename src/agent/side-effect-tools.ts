/** The run's tools that act outside the sandbox: pushes, replies, and the other writes a resumed step must not repeat. */
export const DEFAULT_PUSH_TOOLS = ["commit_and_push"] as const;
export const DEFAULT_REPLY_TOOLS = ["github_comment", "slack_thread_reply", "linear_comment", "jira_comment", "confluence_comment"] as const;
export const SIDE_EFFECT_TOOLS = [...DEFAULT_PUSH_TOOLS, ...DEFAULT_REPLY_TOOLS, "open_or_update_pull_request", "request_pr_review", "schedule_thread_wakeup", "linear_create_issue", "linear_update_issue", "linear_delete_issue", "jira_create_issue", "jira_update_issue", "confluence_create_page", "confluence_update_page"] as const;
