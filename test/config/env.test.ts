import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../../src/config/env.js";
import { testPrivateKey } from "../helpers/github-app.js";

describe("readConfig", () => {
  it("runs on embedded defaults with an empty environment (setup mode)", () => {
    const c = readConfig({}, "/srv/app");
    expect(c.github).toBeNull();
    expect(c.redis).toBeNull();
    expect(c.dataDir).toBe("/srv/app/.data");
    expect(c.env.PORT).toBe(3000);
    expect(c.env.MENTION_HANDLES).toEqual(["open-swe", "openswe"]);
    expect(c.botLogins).toEqual(["open-swe[bot]"]);
  });

  it("collects MCP_SECRET_<NAME> variables by NAME; APPROVAL_TIMEOUT_MINUTES and METRICS_TOKEN are read", () => {
    const c = readConfig({ MCP_SECRET_DOCS_TOKEN: "t0k", MCP_SECRET_: "", OTHER: "x", APPROVAL_TIMEOUT_MINUTES: "5", METRICS_TOKEN: "0123456789abcdef" });
    expect(c.mcpSecrets).toEqual({ DOCS_TOKEN: "t0k" });
    expect(c.env.APPROVAL_TIMEOUT_MINUTES).toBe(5);
    expect(c.env.METRICS_TOKEN).toBe("0123456789abcdef");
    expect(readConfig({}).env.APPROVAL_TIMEOUT_MINUTES).toBe(60);
  });

  it("Redis Sentinel: the sentinels, the master's name and passwords; a URL and sentinels together are refused; BullMQ timings", () => {
    expect(readConfig({ QUEUE_REDIS_SENTINELS: "s1:26379, 10.0.0.2:26380", QUEUE_REDIS_PASSWORD: "pw" }).redis).toEqual({
      sentinels: [
        { host: "s1", port: 26379 },
        { host: "10.0.0.2", port: 26380 },
      ],
      name: "mymaster",
      tls: false,
      password: "pw",
    });
    expect(readConfig({ QUEUE_REDIS_SENTINELS: "s1:1", QUEUE_REDIS_SENTINEL_NAME: "queues", QUEUE_REDIS_SENTINEL_TLS: "true" }).redis).toMatchObject({ name: "queues", tls: true });
    expect(() => readConfig({ QUEUE_REDIS_SENTINELS: "s1" })).toThrow(/invalid QUEUE_REDIS_SENTINELS: host:port of each sentinel/);
    expect(() => readConfig({ QUEUE_REDIS_SENTINELS: "s1:1", QUEUE_REDIS_URL: "redis://r" })).toThrow(/both set/);
    const t = readConfig({ QUEUE_LOCK_DURATION_MS: "5000", QUEUE_STALLED_INTERVAL_MS: "2000", QUEUE_MAX_STALLED_COUNT: "3" }).env;
    expect([t.QUEUE_LOCK_DURATION_MS, t.QUEUE_STALLED_INTERVAL_MS, t.QUEUE_MAX_STALLED_COUNT]).toEqual([5000, 2000, 3]);
    expect(() => readConfig({ QUEUE_LOCK_DURATION_MS: "10" })).toThrow(/invalid QUEUE_LOCK_DURATION_MS/);
  });

  it("accepts a full GitHub App config, with \\n-escaped keys", () => {
    const c = readConfig({ APP_ID: "42", PRIVATE_KEY: testPrivateKey().replace(/\n/g, "\\n"), WEBHOOK_SECRET: "s", QUEUE_REDIS_URL: "redis://r:6379" });
    expect(c.github?.appId).toBe("42");
    expect(c.github?.privateKey).toContain("\n");
    expect(c.redis).toEqual({ url: "redis://r:6379" });
  });

  it.each([
    [{ PORT: "eighty" }, /PORT/],
    [{ METRICS_TOKEN: "short" }, /METRICS_TOKEN: at least 16/],
    [{ APPROVAL_TIMEOUT_MINUTES: "0" }, /APPROVAL_TIMEOUT_MINUTES/],
    [{ PORT: "70000" }, /PORT/],
    [{ QUEUE_REDIS_URL: "localhost:6379" }, /QUEUE_REDIS_URL: a redis:\/\//],
    [{ QUEUE_PREFIX: "a:b" }, /QUEUE_PREFIX/],
    [{ LOG_LEVEL: "loud" }, /LOG_LEVEL/],
    [{ APP_ID: "abc" }, /APP_ID: a numeric GitHub App id/],
    [{ APP_ID: "1" }, /missing PRIVATE_KEY or PRIVATE_KEY_PATH/],
    [{ APP_ID: "1", PRIVATE_KEY: "nope", WEBHOOK_SECRET: "s" }, /PEM private key/],
    [{ APP_ID: "1", PRIVATE_KEY_PATH: "/does/not/exist.pem", WEBHOOK_SECRET: "s" }, /cannot read \/does\/not\/exist.pem/],
    [{ PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----x" }, /missing APP_ID/],
    [{ OPEN_SWE_SECRET_KEY: "short" }, /OPEN_SWE_SECRET_KEY: 64 hex/],
  ])("%j stops start-up naming the variable", (env, message) => {
    expect(() => readConfig(env)).toThrow(ConfigError);
    expect(() => readConfig(env)).toThrow(message);
  });

  it("requires the webhook secret with app credentials", () => {
    expect(() => readConfig({ APP_ID: "1", PRIVATE_KEY: testPrivateKey() })).toThrow(/missing WEBHOOK_SECRET/);
  });
});
