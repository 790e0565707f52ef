import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { RedisSaver } from "../agent/checkpoint/redis-saver.js";
import { textOf } from "./conversation.js";

/** One `task` call of the run and the subagent's own conversation, as its checkpoints hold it. */
export interface SubagentRun {
  agent: string;
  description: string;
  messages: BaseMessage[];
}

interface TaskCall {
  agent: string;
  description: string;
}

/** Pure: the `task` calls of a conversation, in order. */
export function taskCalls(messages: readonly BaseMessage[]): TaskCall[] {
  return messages.flatMap((m) =>
    AIMessage.isInstance(m)
      ? (m.tool_calls ?? []).flatMap((c) =>
          c.name === "task" && typeof c.args["description"] === "string"
            ? [{ agent: typeof c.args["subagent_type"] === "string" ? c.args["subagent_type"] : "general-purpose", description: c.args["description"] }]
            : [],
        )
      : [],
  );
}

/**
 * Pure: each `task` call with the subagent conversation that answered it. deepagents runs a subagent
 * as a subgraph with the run's config, so its checkpoints sit in the thread under `tools:<id>`; its
 * messages begin with the task's description (after the parent's, when it forks). A call without a
 * conversation (pruned, or another host's) is left out; so is a conversation no call of this thread asked for.
 */
export function matchSubagents(calls: readonly TaskCall[], conversations: readonly BaseMessage[][]): SubagentRun[] {
  const left = [...conversations];
  return calls.flatMap((call) => {
    for (let i = 0; i < left.length; i++) {
      const msgs = left[i]!;
      const start = msgs.findIndex((m) => HumanMessage.isInstance(m) && textOf(m).endsWith(call.description));
      if (start >= 0) {
        left.splice(i, 1);
        return [{ ...call, messages: msgs.slice(start) }];
      }
    }
    return [];
  });
}

/** The subagents the thread's `task` calls started, each with its latest checkpoint's messages. */
export async function readSubagents(saver: RedisSaver, threadId: string, parent: readonly BaseMessage[]): Promise<SubagentRun[]> {
  const calls = taskCalls(parent);
  if (calls.length === 0) return [];
  const spaces = (await saver.namespaces(threadId)).filter((ns) => /^tools:[^|]+$/.test(ns));
  const conversations = await Promise.all(
    spaces.map(async (ns) => {
      const tuple = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: ns } });
      return ((tuple?.checkpoint.channel_values as Record<string, unknown> | undefined)?.["messages"] as BaseMessage[] | undefined) ?? [];
    }),
  );
  return matchSubagents(calls, conversations);
}
