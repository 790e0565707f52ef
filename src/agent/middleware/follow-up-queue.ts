import { HumanMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import type { Logger } from "../../logger.js";
import { threadIdOf } from "./thread-id.js";

export interface FollowUpQueueDeps {
  /** Takes (and removes) the messages that arrived on the thread while the run was working. */
  drainFollowUps: (threadId: string) => Promise<string[]>;
  /** Used when the run config carries no thread id. */
  threadId?: string;
  logger?: Logger;
}

/**
 * Before each model call, drains the thread's follow-up queue and adds each message as a user
 * message, so "message the agent while it works" reaches the model at its next turn.
 */
export function followUpQueueMiddleware(deps: FollowUpQueueDeps) {
  return createMiddleware({
    name: "FollowUpQueueMiddleware",
    beforeModel: async (_state, runtime) => {
      const threadId = threadIdOf(runtime, deps.threadId);
      if (!threadId) return undefined;
      let texts: string[];
      try {
        texts = await deps.drainFollowUps(threadId);
      } catch (err) {
        // A queue outage must not kill the run; the messages stay queued for the next call.
        deps.logger?.warn({ err, thread: threadId }, "follow-up drain failed");
        return undefined;
      }
      const messages = texts.filter((t) => t.trim() !== "").map((t) => new HumanMessage({ content: t, additional_kwargs: { follow_up: true } }));
      return messages.length > 0 ? { messages } : undefined;
    },
  });
}
