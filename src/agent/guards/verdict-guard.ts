import { ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { sanitizeToolArgs } from "../middleware/sanitize-tool-inputs.js";
import { analyzeShellCommand, detectShellVerdict, type ShellFinding, type ShellVerdict } from "./shell-verdict.js";

export { analyzeShellCommand, detectShellVerdict, type ShellFinding, type ShellVerdict };

export const VERDICT_GUARD_ERROR_CODE = "verdict_guard_blocked";

export function verdictGuardMessage(finding: ShellFinding | ShellVerdict): string {
  const f: ShellFinding = typeof finding === "string" ? { verdict: finding, reason: "" } : finding;
  const what =
    f.verdict === "UNKNOWN_REVIEW_POST"
      ? `reaches for GitHub in a way whose review event cannot be verified before it runs${f.reason ? ` (${f.reason})` : ""}. ` +
        "If it does not submit a review, write it with literal arguments (no eval, command substitution, variables, " +
        "encoded text, aliases or config files for the gh/curl part) and run it again"
      : `submits a ${f.verdict} pull-request review`;
  return (
    `Error (${VERDICT_GUARD_ERROR_CODE}${f.verdict === "UNKNOWN_REVIEW_POST" ? "" : ", non-recoverable"}): this command ${what}. Review verdicts may only be ` +
    "submitted through the `publish_review` tool, which decides whether a verdict is authorized for this run. " +
    "Do not try another way to submit a verdict (another shell path, script, or API call)."
  );
}

/**
 * Blocks `execute` tool calls that would submit a review verdict outside `publish_review`: the tool
 * never runs; the model gets an error ToolMessage instead. It normalises the arguments itself
 * (`sanitizeToolArgs`: JSON-string args, NUL bytes) and hands on exactly what it checked, so the
 * command it judges is the command the sandbox receives, wherever it sits in the stack.
 */
export function verdictGuardMiddleware(options: { toolNames?: readonly string[] } = {}) {
  const guarded = new Set(options.toolNames ?? ["execute"]);
  return createMiddleware({
    name: "VerdictGuardMiddleware",
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      if (!guarded.has(toolCall.name)) return handler(request);
      const args = sanitizeToolArgs(toolCall.args);
      const command: unknown = args["command"];
      if (typeof command === "string") {
        const finding = analyzeShellCommand(command);
        if (finding !== null) {
          return new ToolMessage({ content: verdictGuardMessage(finding), tool_call_id: toolCall.id ?? "", name: toolCall.name, status: "error" });
        }
      }
      return handler({ ...request, toolCall: { ...toolCall, args } });
    },
  });
}
