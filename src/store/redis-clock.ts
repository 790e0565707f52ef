import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { OpenSweError } from "../errors.js";
import { redisNowMs } from "../shared/redis-time.js";

/** Past this, a worker's clock is too far from Redis's to schedule by (BullMQ promotes delayed jobs and steps its schedulers on the worker's clock). */
export const MAX_CLOCK_SKEW_MS = 30_000;
/** How often a running worker checks again. */
export const CLOCK_RECHECK_MS = 10 * 60_000;

export class ClockSkewError extends OpenSweError<"clock_skew"> {
  constructor(message: string) {
    super("clock_skew", message);
  }
}

/** This host's clock minus Redis's (positive: ahead), taken at the middle of the round trip. */
export async function measureClockSkew(redis: Redis, now: () => number = Date.now): Promise<number> {
  const before = now();
  const server = await redisNowMs(redis);
  const after = now();
  return Math.round((before + after) / 2 - server);
}

function span(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min ${s % 60} s` : `${s} s`;
}

/** Null when the skew is within the limit; otherwise the one line that says how far off and which way. Pure. */
export function clockSkewProblem(skewMs: number, limitMs = MAX_CLOCK_SKEW_MS): string | null {
  if (Math.abs(skewMs) <= limitMs) return null;
  return `this host's clock is ${span(skewMs)} ${skewMs > 0 ? "ahead of" : "behind"} Redis's (more than ${span(limitMs)}): wake-ups, sweeps and schedules would fire at the wrong time; sync the host's clock (NTP)`;
}

/** Start-up: a clock too far off refuses the worker; afterwards it is checked every `everyMs` and a drift is logged (one line each time). */
export async function checkClock(redis: Redis, log: Pick<Logger, "error">, everyMs = CLOCK_RECHECK_MS, now: () => number = Date.now): Promise<() => void> {
  const problem = clockSkewProblem(await measureClockSkew(redis, now));
  if (problem) throw new ClockSkewError(problem);
  const timer = setInterval(() => {
    measureClockSkew(redis, now).then(
      (skewMs) => {
        const later = clockSkewProblem(skewMs);
        if (later) log.error({ skewMs }, later);
      },
      () => undefined, // Redis unreachable: its own logs say so.
    );
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
