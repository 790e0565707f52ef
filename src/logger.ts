import { pino, type Logger } from "pino";

export type { Logger };

/** The root logger; every delivery and job logs through a child of it. */
export function createLogger(level: string = "info", name = "open-swe"): Logger {
  return pino({ name, level, redact: { paths: ["*.token", "*.privateKey", "*.secret", "token", "headers.authorization"], remove: true } });
}
