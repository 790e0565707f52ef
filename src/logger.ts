import { createRequire } from "node:module";
import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger };

export type LogFormat = "json" | "pretty";

const REDACT = { paths: ["*.token", "*.privateKey", "*.secret", "token", "headers.authorization"], remove: true };

/** `pretty` only where a person reads it (a TTY); anything piped or collected stays one JSON object per line. */
export function effectiveLogFormat(format: LogFormat | undefined, isTty: boolean): LogFormat {
  return format === "pretty" && isTty ? "pretty" : "json";
}

/**
 * The root logger; every delivery and job logs through a child of it. Children add a `component`
 * (never a second `name`: pino would print the key twice).
 */
export function createLogger(level: string = "info", name = "open-swe", destination?: DestinationStream, format: LogFormat = "json"): Logger {
  const options = { name, level, redact: REDACT };
  if (!destination && effectiveLogFormat(format, process.stdout.isTTY === true) === "pretty") {
    const pretty = createRequire(import.meta.url)("pino-pretty") as (o: object) => DestinationStream;
    return pino(options, pretty({ colorize: true, translateTime: "HH:MM:ss.l", ignore: "pid,hostname" }));
  }
  return destination ? pino(options, destination) : pino(options);
}
