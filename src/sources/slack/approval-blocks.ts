import type { KnownBlock } from "@slack/web-api";
import { APPROVAL_ACTIONS } from "./schema.js";

/** Block Kit for an approval request: the text (Slack caps a section at 3000 characters) and Approve / Deny buttons. */
export function approvalBlocks(mrkdwn: string, approvalId: string): KnownBlock[] {
  return [
    { type: "section", text: { type: "mrkdwn", text: mrkdwn.length > 3000 ? `${mrkdwn.slice(0, 2990)}…` : mrkdwn } },
    {
      type: "actions",
      block_id: `open_swe_approval_${approvalId}`,
      elements: [
        { type: "button", action_id: APPROVAL_ACTIONS.approve, value: approvalId, style: "primary", text: { type: "plain_text", text: "Approve" } },
        { type: "button", action_id: APPROVAL_ACTIONS.deny, value: approvalId, style: "danger", text: { type: "plain_text", text: "Deny" } },
      ],
    },
  ];
}
