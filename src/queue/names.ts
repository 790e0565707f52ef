export const QUEUE_NAMES = ["agent", "review", "ci-event", "cleanup", "command", "ci-monitor", "analyze", "source-event"] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];
