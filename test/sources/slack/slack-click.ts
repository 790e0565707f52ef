export const TEAM = "T0TEAM";
export const CHANNEL = "C0ENG";
export const THREAD = "1764591000.000100";
export const REQUEST_TS = "1764591100.000200";

/** A block_actions payload as Slack posts it: form-encoded `payload=<json>`, signed over those bytes. */
export function clickBody(o: { user: string; id: string; action?: "approve" | "deny"; at?: string; channel?: string }): string {
  const payload = {
    type: "block_actions",
    team: { id: TEAM, domain: "octo" },
    user: { id: o.user, username: o.user.toLowerCase(), team_id: TEAM },
    api_app_id: "A0APP",
    trigger_id: "123.456.abc",
    container: { type: "message", message_ts: REQUEST_TS, channel_id: o.channel ?? CHANNEL, is_ephemeral: false, thread_ts: THREAD },
    channel: { id: o.channel ?? CHANNEL, name: "eng" },
    message: { type: "message", ts: REQUEST_TS, thread_ts: THREAD, user: "UBOT", text: "Approval needed" },
    actions: [{ type: "button", action_id: `open_swe_approval_${o.action ?? "approve"}`, block_id: `open_swe_approval_${o.id}`, value: o.id, action_ts: o.at ?? "1764591200.000300" }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}
