import type { Source } from "./source.js";

/**
 * Tasks started from the dashboard (`/app/tasks`): no routes (the dashboard's own signed-in form queues
 * the agent job) and nothing to re-read — the request was typed by a signed-in writer. The run page is
 * the conversation: it reads the thread's checkpoints, so replies need no second copy; a run refused
 * before it starts fails its job with the reason, which the run page shows.
 */
export function dashboardSource(): Source {
  return {
    name: "dashboard",
    configured: true,
    routes: [],
    client: () => ({
      fetchMessage: async () => null,
      acknowledge: async () => undefined,
      reply: async () => undefined,
      tools: () => [],
    }),
  };
}
