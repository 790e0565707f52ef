import type { AssistantThreadsSetStatusResponse, ChatPostMessageResponse, ChatUpdateResponse, ConversationsRepliesResponse, ReactionsAddResponse, UsersInfoResponse } from "@slack/web-api";
import { typedBody } from "./typed-bodies.js";

/**
 * The Slack Web API methods we call, each with the response type `@slack/web-api` (pinned) publishes for
 * it. A mock's body goes through `slackBody("chat.postMessage", {...})`: a field Slack does not send, or
 * one of the wrong type, fails `npm run typecheck` (in `.ci/run`); the counter sees it as checked.
 */
export interface SlackResponses {
  "assistant.threads.setStatus": AssistantThreadsSetStatusResponse;
  "chat.postMessage": ChatPostMessageResponse;
  "chat.update": ChatUpdateResponse;
  "conversations.replies": ConversationsRepliesResponse;
  "reactions.add": ReactionsAddResponse;
  "users.info": UsersInfoResponse;
}

export function slackBody<M extends keyof SlackResponses>(_method: M, body: SlackResponses[M]): SlackResponses[M] {
  return typedBody(body);
}
