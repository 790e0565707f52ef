import { errorMessage } from "../errors.js";
import { SandboxError } from "./types.js";

/**
 * Stops a run after `maxConsecutiveFailures` sandbox failures in a row; any success resets the count.
 * The error it throws carries `userMessage`, worded for the person who asked for the run.
 */
export class SandboxCircuitBreaker {
  private failures = 0;
  private lastError: unknown;

  constructor(private readonly maxConsecutiveFailures = 3) {}

  get open(): boolean {
    return this.failures >= this.maxConsecutiveFailures;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.open) throw this.openError();
    try {
      const value = await fn();
      this.failures = 0;
      return value;
    } catch (err) {
      this.failures += 1;
      this.lastError = err;
      if (this.open) throw this.openError();
      throw err;
    }
  }

  private openError(): SandboxError & { userMessage: string } {
    const userMessage =
      `I stopped this run: the sandbox failed ${this.failures} times in a row ` +
      `(last error: ${errorMessage(this.lastError)}). Nothing more was changed; ask me again once the sandbox service is back.`;
    return Object.assign(new SandboxError("unavailable", userMessage, { cause: this.lastError }), { userMessage });
  }
}
