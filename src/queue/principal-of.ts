import type { Principal } from "./job-provenance.js";
import type { QueueName } from "./names.js";

/**
 * Pure: who a job acts for when its enqueuer names nobody else — the requester the payload records
 * (agent, command, review), a CI event's reviewer; nobody for system jobs and unmapped source events.
 */
export function principalOf(queue: QueueName, payload: unknown): Principal {
  const p = payload as { requester?: { login: string; id?: number }; reviewer?: string };
  switch (queue) {
    case "agent":
    case "command":
    case "review":
      return p.requester ? { login: p.requester.login, ...(p.requester.id !== undefined ? { id: p.requester.id } : {}) } : null;
    case "ci-event":
      return p.reviewer ? { login: p.reviewer } : null;
    default:
      return null;
  }
}
