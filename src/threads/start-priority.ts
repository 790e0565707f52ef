import { runStartsTotal, runYieldSeconds } from "../observability/metrics.js";

/**
 * Runs starting on this worker go first. From the moment a run's job is picked up until its first model
 * call, the runs already under way on the same worker wait at their next model or tool call — at most
 * `maxHoldMs` per call, and only while some run is starting. On a busy machine a new request's first
 * response then does not queue for CPU behind every other run's steps. `maxHoldMs` 0 turns it off.
 *
 * A set-up that takes long (a first clone of a big repository) is waiting on the network, not on CPU:
 * a run counts as starting for at most 5 × maxHoldMs, so it does not slow the others for all that time.
 */
export class StartPriority {
  #starting = 0;
  readonly #waiting = new Set<() => void>();

  constructor(readonly maxHoldMs: number) {}

  /** Runs being set up now. */
  get starting(): number {
    return this.#starting;
  }

  /** A run starts; call the returned function (any number of times) when it reaches its first model call or ends. */
  begin(): () => void {
    if (this.maxHoldMs <= 0) return () => undefined;
    this.#starting++;
    runStartsTotal.inc();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearTimeout(expiry);
      this.#starting--;
      if (this.#starting === 0) for (const wake of [...this.#waiting]) wake();
    };
    const expiry = setTimeout(end, 5 * this.maxHoldMs);
    expiry.unref();
    return end;
  }

  /** A run under way yields to starting runs: resolves when none is starting, after maxHoldMs, or on abort. */
  async yieldToStarting(signal?: AbortSignal): Promise<void> {
    if (this.#starting === 0 || signal?.aborted) return;
    const from = performance.now();
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", wake);
        this.#waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, this.maxHoldMs);
      signal?.addEventListener("abort", wake, { once: true });
      this.#waiting.add(wake);
    });
    runYieldSeconds.inc((performance.now() - from) / 1000);
  }
}
