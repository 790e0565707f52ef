export const QUEUE_NAMES = ["agent", "review", "ci-event", "cleanup", "command", "ci-monitor"] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];
