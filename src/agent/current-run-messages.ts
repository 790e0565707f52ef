import { HumanMessage, type BaseMessage } from "@langchain/core/messages";

/** Messages of the current run: from the last user request on (mid-run follow-ups do not start a run). */
export function currentRunMessages(messages: readonly BaseMessage[]): readonly BaseMessage[] {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (m && HumanMessage.isInstance(m) && m.additional_kwargs["follow_up"] !== true) return messages.slice(i);
  }
  return messages;
}
