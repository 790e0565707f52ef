import { createMiddleware } from "langchain";
import type { Logger } from "../../logger.js";
import { isBudgetStop } from "../budget.js";
import { isModelCallLimitMessage } from "./model-call-limit.js";

export interface StepLimitNoticeDeps {
  /** Posts to the source channel (PR comment, Slack thread, Linear comment). */
  notify: (text: string) => Promise<void>;
  logger?: Logger;
}

export const STEP_LIMIT_TEXT =
  "I hit my step limit for this run before finishing, so I stopped here. Anything already pushed is on the branch. Reply to this thread and I will pick up where I left off.";

/** After the run, tells the user when it ended on the model-call limit, so they get a signal instead of silence. */
export function stepLimitNoticeMiddleware(deps: StepLimitNoticeDeps) {
  return createMiddleware({
    name: "StepLimitNoticeMiddleware",
    afterAgent: async (state) => {
      // A budget stop is told in the run's last reply, with what was spent.
      if (!isModelCallLimitMessage(state.messages.at(-1)) || isBudgetStop(state.messages.at(-1))) return undefined;
      try {
        await deps.notify(STEP_LIMIT_TEXT);
      } catch (err) {
        deps.logger?.warn({ err }, "step-limit notice failed");
      }
      return undefined;
    },
  });
}
