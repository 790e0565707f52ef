import type { Redis } from "ioredis";
import { keyer } from "./keys.js";

/** The abort reason a run sees when someone pressed Stop (the worker cancels the job with it). */
export const STOP_REASON = "stopped from the dashboard";

/**
 * Stop requests for agent runs: a key (so a worker that picks the job up later still sees it) and a
 * pub/sub message (so the worker running it cancels it now through the job's AbortSignal).
 */
export class RunStops {
  private readonly key: (...p: (string | number)[]) => string;
  readonly channel: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = keyer(`${prefix}:run-stop`);
    this.channel = this.key("channel");
  }

  async request(runId: string, by: string): Promise<void> {
    await this.redis.set(this.key(runId), by, "EX", 86400);
    await this.redis.publish(this.channel, runId);
  }

  /** Who asked to stop this run, or null. */
  async requested(runId: string): Promise<string | null> {
    return this.redis.get(this.key(runId));
  }

  /**
   * Calls `onStop(runId)` for every stop request published from now on, on its own connection (a
   * subscribed connection can do nothing else). Returns the unsubscribe.
   */
  async listen(onStop: (runId: string) => void): Promise<() => Promise<void>> {
    const sub = this.redis.duplicate();
    sub.on("error", () => undefined);
    sub.on("message", (channel: string, runId: string) => {
      if (channel === this.channel) onStop(runId);
    });
    await sub.subscribe(this.channel);
    return async () => {
      await sub.quit().catch(() => sub.disconnect());
    };
  }
}
