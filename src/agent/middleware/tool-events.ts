import { createMiddleware } from "langchain";

/** Times every tool call that runs and hands its name, duration and result to `onExecuted` (run events, metrics). */
export function toolEventsMiddleware(onExecuted: (name: string, durationMs: number, result: unknown) => void) {
  return createMiddleware({
    name: "ToolEventsMiddleware",
    wrapToolCall: async (request, handler) => {
      const started = performance.now();
      let result: unknown;
      try {
        result = await handler(request);
        return result as Awaited<ReturnType<typeof handler>>;
      } catch (err) {
        result = { status: "error", content: String(err) };
        throw err;
      } finally {
        onExecuted(request.toolCall.name, performance.now() - started, result);
      }
    },
  });
}
