import { describe, expect, it } from "vitest";
import { envProblems } from "../../src/config/env-problems.js";

describe("envProblems: every problem of the environment, one line naming the variable", () => {
  it.each([
    ["nothing set (setup mode)", {}, []],
    ["an external Redis and a sandbox provider", { QUEUE_REDIS_URL: "redis://127.0.0.1:6379", SANDBOX_TYPE: "e2b", E2B_API_KEY: "e2b_x" }, []],
    ["a malformed port", { PORT: "http" }, ['invalid PORT: Invalid input: expected number, received NaN (got "http")']],
    [
      "three readers' problems at once",
      { PORT: "http", SANDBOX_TYPE: "e2c", ANTHROPIC_BASE_URL: "api.anthropic.com" },
      [expect.stringMatching(/^invalid PORT: /), expect.stringMatching(/^invalid SANDBOX_TYPE: .*\(got "e2c"\)$/), expect.stringMatching(/^invalid ANTHROPIC_BASE_URL: an http\(s\) URL/)],
    ],
    ["a credential's value is never shown", { METRICS_TOKEN: "hunter2" }, ["invalid METRICS_TOKEN: at least 16 characters (a value of 7 characters, not shown)"]],
    ["a check across variables", { APP_ID: "1", WEBHOOK_SECRET: "s" }, ["missing PRIVATE_KEY or PRIVATE_KEY_PATH: the GitHub App's PEM key (APP_ID is set)"]],
    ["an unknown model", { OPEN_SWE_MODEL: "gpt-4o" }, [expect.stringMatching(/^invalid OPEN_SWE_MODEL: unknown model "gpt-4o"/)]],
    ["both Redis forms", { QUEUE_REDIS_URL: "redis://h:6379", QUEUE_REDIS_SENTINELS: "h:26379" }, [expect.stringMatching(/^QUEUE_REDIS_URL and QUEUE_REDIS_SENTINELS are both set/)]],
  ])("%s", (_, env, problems) => {
    expect(envProblems(env as Record<string, string>)).toEqual(problems);
  });
});
