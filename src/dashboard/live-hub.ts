import type { Redis } from "ioredis";
import type { Logger } from "pino";

interface Follow<S> {
  channel: string;
  load: () => Promise<S>;
  viewers: Set<(state: S) => void>;
  latest?: S;
  loading: boolean;
  dirty: boolean;
}

/**
 * One Redis subscriber per web process, one subscription per followed run: when the run's channel says
 * something changed, the run's state is read once and handed to every viewer of it in this process.
 * Nothing is read while a run is idle; the subscriber connection exists only while someone watches.
 */
export class LiveHub<S> {
  private readonly follows = new Map<string, Follow<S>>();
  private sub: Redis | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly log: Logger,
  ) {}

  /** How many runs this process follows (one Redis subscription each). */
  get following(): number {
    return this.follows.size;
  }

  /**
   * Starts (or joins) following `runId`: `viewer` gets the current state, then each new one. Returns
   * the leave function; the last viewer to leave ends the subscription.
   */
  async join(runId: string, channel: string, load: () => Promise<S>, viewer: (state: S) => void): Promise<() => void> {
    let f = this.follows.get(runId);
    if (!f) {
      f = { channel, load, viewers: new Set([viewer]), loading: false, dirty: false };
      this.follows.set(runId, f);
      // Subscribed before the first read: a change between the two is not missed.
      try {
        await this.subscriber().subscribe(channel);
      } catch (err) {
        // Redis refused or is away: this stream fails (the browser retries) and leaves nothing behind.
        this.follows.delete(runId);
        if (this.follows.size === 0) this.closeSubscriber();
        throw err;
      }
      await this.refresh(f);
    } else {
      f.viewers.add(viewer);
      if (f.latest !== undefined) viewer(f.latest);
    }
    const follow = f;
    return () => {
      follow.viewers.delete(viewer);
      if (follow.viewers.size > 0 || this.follows.get(runId) !== follow) return;
      this.follows.delete(runId);
      if (![...this.follows.values()].some((o) => o.channel === follow.channel)) void this.sub?.unsubscribe(follow.channel).catch(() => undefined);
      if (this.follows.size === 0) this.closeSubscriber();
    };
  }

  private subscriber(): Redis {
    if (this.sub) return this.sub;
    const sub = this.redis.duplicate();
    sub.on("message", (channel: string) => {
      for (const f of this.follows.values()) if (f.channel === channel) void this.refresh(f);
    });
    // After a reconnect (ioredis subscribes again) what changed meanwhile was not heard: read again.
    let connected = false;
    sub.on("ready", () => {
      if (connected) for (const f of this.follows.values()) void this.refresh(f);
      connected = true;
    });
    sub.on("error", (err: Error) => this.log.warn({ err: err.message }, "dashboard live view: subscriber error"));
    this.sub = sub;
    return sub;
  }

  private closeSubscriber(): void {
    const sub = this.sub;
    this.sub = null;
    sub?.disconnect();
  }

  /** Reads the run's state and hands it out; changes heard while reading are read again after, once. */
  private async refresh(f: Follow<S>): Promise<void> {
    if (f.loading) {
      f.dirty = true;
      return;
    }
    f.loading = true;
    try {
      do {
        f.dirty = false;
        f.latest = await f.load();
        for (const v of f.viewers) v(f.latest);
      } while (f.dirty && f.viewers.size > 0);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, "dashboard live view: reading the run failed");
    } finally {
      f.loading = false;
    }
  }
}
