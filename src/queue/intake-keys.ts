import type { QueueName } from "./names.js";

/** One stream per queue: webhooks appended by the web tier, not yet moved into BullMQ by a pump. */
export function intakeStreamKey(prefix: string, queue: QueueName): string {
  return `${prefix}:intake:${queue}`;
}

/** The consumer group every intake pump reads in: an entry is delivered to one pump, and stays pending until it acknowledges it. */
export const INTAKE_GROUP = "pumps";
