/** The `ask` tool calls a run paused before (deepagents' `interruptOn`): what an approval decides on. */
export interface PendingToolCalls {
  actionRequests: Array<{ name: string; args: Record<string, unknown> }>;
}

/** The first interrupt's action requests in a graph state (`graph.getState`), or undefined when nothing waits. */
export function pendingToolCalls(state: { tasks?: Array<{ interrupts?: Array<{ value?: unknown }> }> }): PendingToolCalls | undefined {
  for (const task of state.tasks ?? []) {
    for (const i of task.interrupts ?? []) {
      const value = i.value as { actionRequests?: PendingToolCalls["actionRequests"] } | undefined;
      if (Array.isArray(value?.actionRequests) && value.actionRequests.length > 0) return { actionRequests: value.actionRequests.map((a) => ({ name: a.name, args: a.args ?? {} })) };
    }
  }
  return undefined;
}
