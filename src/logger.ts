import { createRequire } from "node:module";
import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger };

export type LogFormat = "json" | "pretty";

const REDACT = { paths: ["*.token", "*.privateKey", "*.secret", "token", "headers.authorization"], remove: true };

/**
 * Pretty where a person reads it (a TTY) unless LOG_FORMAT=json; anything piped or collected stays one
 * JSON object per line, whatever LOG_FORMAT says (as Probot does).
 */
export function effectiveLogFormat(format: LogFormat | undefined, isTty: boolean): LogFormat {
  return isTty && format !== "json" ? "pretty" : "json";
}

/**
 * The root logger; every delivery and job logs through a child of it. Children add a `component`
 * (never a second `name`: pino would print the key twice).
 */
export function createLogger(level: string = "info", name = "open-swe", destination?: DestinationStream, format?: LogFormat): Logger {
  const options = { name, level, redact: REDACT };
  if (!destination && effectiveLogFormat(format, process.stdout.isTTY === true) === "pretty") {
    const pretty = createRequire(import.meta.url)("pino-pretty") as (o: object) => DestinationStream;
    return pino(options, pretty({ colorize: true, translateTime: "HH:MM:ss.l", ignore: "pid,hostname" }));
  }
  return destination ? pino(options, destination) : pino(options);
}

/**
 * One line for a burst of the same failure: the first at once, then at most one per `intervalMs`
 * carrying how many were held back. A Redis outage makes every connection and queue report an error
 * per reconnect attempt; this keeps that to a handful of JSON lines a minute.
 */
export function rateLimitedLog(log: Logger, msg: string, intervalMs = 30_000, level: "warn" | "error" = "warn") {
  let last = -Infinity;
  let suppressed = 0;
  return (fields: Record<string, unknown> = {}): void => {
    const now = Date.now();
    if (now - last < intervalMs) {
      suppressed += 1;
      return;
    }
    last = now;
    log[level]({ ...fields, ...(suppressed > 0 ? { suppressed } : {}) }, msg);
    suppressed = 0;
  };
}
