import { describe, expect, it } from "vitest";
import { createLogger, effectiveLogFormat } from "../src/logger.js";

describe("log format", () => {
  it.each([
    ["pretty", true, "pretty"],
    ["pretty", false, "json"],
    ["json", true, "json"],
    [undefined, true, "pretty"],
    [undefined, false, "json"],
  ] as const)("LOG_FORMAT=%s on a TTY=%s → %s", (format, tty, expected) => {
    expect(effectiveLogFormat(format, tty)).toBe(expected);
  });

  it("a child logger adds a component, never a second name", () => {
    const lines: string[] = [];
    createLogger("info", "open-swe", { write: (l: string) => void lines.push(l) })
      .child({ component: "webhook-proxy" })
      .info("x");
    expect(lines[0]!.match(/"name":/g)).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ name: "open-swe", component: "webhook-proxy" });
  });
});
