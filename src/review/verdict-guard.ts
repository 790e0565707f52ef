import { ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { detectShellVerdict, type ShellVerdict } from "./shell-verdict.js";

export { detectShellVerdict, type ShellVerdict };

export const VERDICT_GUARD_ERROR_CODE = "verdict_guard_blocked";

export function verdictGuardMessage(verdict: ShellVerdict): string {
  const what = verdict === "UNKNOWN_REVIEW_POST" ? "posts a pull-request review whose event cannot be verified" : `submits a ${verdict} pull-request review`;
  return (
    `Error (${VERDICT_GUARD_ERROR_CODE}, non-recoverable): this command ${what}. Review verdicts may only be ` +
    "submitted through the `publish_review` tool, which decides whether a verdict is authorized for this run. " +
    "Do not retry this command or any variant of it (another shell path, script, or API call)."
  );
}

/**
 * Blocks `execute` tool calls that would submit a review verdict outside `publish_review`.
 * The tool never runs; the model gets an error ToolMessage instead.
 */
export function verdictGuardMiddleware(options: { toolNames?: readonly string[] } = {}) {
  const guarded = new Set(options.toolNames ?? ["execute"]);
  return createMiddleware({
    name: "VerdictGuardMiddleware",
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      const command: unknown = toolCall.args["command"];
      if (guarded.has(toolCall.name) && typeof command === "string") {
        const verdict = detectShellVerdict(command);
        if (verdict !== null) {
          return new ToolMessage({
            content: verdictGuardMessage(verdict),
            tool_call_id: toolCall.id ?? "",
            name: toolCall.name,
            status: "error",
          });
        }
      }
      return handler(request);
    },
  });
}
