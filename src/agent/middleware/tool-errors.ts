import { toolErrorMiddleware } from "langchain";
import { errorMessage } from "../../errors.js";

const MAX_ERROR_CHARS = 2_000;

/** Formats a tool failure for the model: what failed and why, short enough not to flood the context. */
export function toolErrorText(toolName: string, err: unknown): string {
  const message = errorMessage(err);
  const clipped = message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}… [truncated]` : message;
  return `Error: ${toolName} failed: ${clipped}`;
}

/** Any exception a tool throws comes back to the model as an error tool message, so the run can recover. */
export function toolErrorsMiddleware() {
  return toolErrorMiddleware({ onError: (err, request) => toolErrorText(request.toolCall.name, err) });
}
