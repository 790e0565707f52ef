import type { RedisSaver } from "../agent/checkpoint/redis-saver.js";
import type { SandboxCache } from "../sandbox/lifecycle.js";
import type { SandboxProvider } from "../sandbox/types.js";
import type { StartPriority } from "./start-priority.js";
import type { SideEffectLedger } from "../store/side-effects.js";

/**
 * What agent and review runs share within one worker process: built once, at worker start
 * (`createAgentRuntime`, src/runs/agent-runtime.ts), carried by the worker's services to the runs.
 */
export interface AgentRuntime {
  sandboxProvider: SandboxProvider;
  sandboxCache: SandboxCache;
  checkpointer: RedisSaver;
  effects: SideEffectLedger;
  /** Runs being set up go first: runs under way wait for them at their next model or tool call (bounded). */
  startPriority: StartPriority;
  /** Local sandboxes: this worker's host id (its threads' jobs are routed here; src/queue/host-routes.ts). */
  hostId?: string | undefined;
}
