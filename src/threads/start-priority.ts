import { runYieldSeconds } from "../observability/metrics.js";

/**
 * Runs starting on this worker go first. From the moment a run's job is picked up until its first model
 * call, the runs already under way on the same worker wait at their next model or tool call — at most
 * `maxHoldMs` per call, and only while some run is starting. On a busy machine a new request's first
 * response then does not queue for CPU behind every other run's steps. `maxHoldMs` 0 turns it off.
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
    this.#starting++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#starting--;
      if (this.#starting === 0) for (const wake of [...this.#waiting]) wake();
    };
  }

  /** A run under way yields to starting runs: resolves when none is starting, after maxHoldMs, or on abort. */
  async yieldToStarting(signal?: AbortSignal): Promise<void> {
    if (this.#starting === 0 || this.maxHoldMs <= 0 || signal?.aborted) return;
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
