import { runSetupSeconds } from "./metrics.js";

/** The phases of a run's set-up, in order, up to its first model call. */
export type SetupPhase = "claim" | "config" | "model" | "workspace" | "tools" | "inputs" | "agent";

/**
 * Times a run's set-up phase by phase into `open_swe_run_setup_seconds{phase}`, from the worker picking its job
 * up (`claim`: authorization and the thread's lock): each `lap` is the time since the previous one. Laps after the first model call (`agent`) are ignored, so a resumed or
 * multi-call run counts its set-up once.
 */
export class SetupClock {
  private last: number;
  private ended = false;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.last = now();
  }

  lap(phase: SetupPhase): void {
    if (this.ended) return;
    const at = this.now();
    runSetupSeconds.observe({ phase }, (at - this.last) / 1000);
    this.last = at;
    if (phase === "agent") this.ended = true;
  }
}
