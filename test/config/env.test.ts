import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

  it.each([
    [{ GHE_HOST: "https://github.example.com" }, /^invalid GHE_HOST: a host name like github.example.com \(no https:\/\/, no path\) \(got "https:\/\/github.example.com"\)$/],
    [{ GHE_HOST: "github.example.com/api" }, /^invalid GHE_HOST: a host name/],
    [{ APP_URL: "localhost:3000" }, /^invalid APP_URL: an http\(s\) URL with its scheme, e.g. https:\/\/open-swe.example.com \(got "localhost:3000"\)$/],
    [{ WEBHOOK_PROXY_URL: "smee.io/abc" }, /^invalid WEBHOOK_PROXY_URL: an http\(s\) URL/],
    [{ GITHUB_API_URL: "ftp://ghe.local/api/v3" }, /^invalid GITHUB_API_URL: an http\(s\) URL/],
    [{ SLACK_API_URL: "slack.example.com" }, /^invalid SLACK_API_URL/],
    [{ LINEAR_API_URL: "linear" }, /^invalid LINEAR_API_URL/],
    [{ LINEAR_API_URL: "http://linear.mirror.example/graphql" }, /^invalid LINEAR_API_URL: https \(Linear's SDK allows http only to localhost\)/],
    [{ OPEN_SWE_MODEL: "replay:/missing.json" }, /^invalid OPEN_SWE_MODEL: cannot read replay script \/missing.json: ENOENT/],
    [{ OPEN_SWE_MODEL: "claude-sonet-4-6" }, /^invalid OPEN_SWE_MODEL: unknown model "claude-sonet-4-6": one of claude-opus-4-8, .*, or openai:<name> for an OpenAI-compatible endpoint$/],
    [{ OPEN_SWE_MODEL: "gpt-4o" }, /^invalid OPEN_SWE_MODEL: unknown model "gpt-4o"/],
    [{ OPEN_SWE_FALLBACK_MODEL: "haiku" }, /^invalid OPEN_SWE_FALLBACK_MODEL: unknown model "haiku"/],
    [{ THREAD_MODELS: "claude-opus-4-7,claude-opuss" }, /^invalid THREAD_MODELS: unknown model "claude-opuss"/],
    // The model and sandbox variables are refused as the others are: the variable, why, and what it was.
    [{ ANTHROPIC_BASE_URL: "localhost:8080" }, /^invalid ANTHROPIC_BASE_URL: an http\(s\) URL with its scheme, e.g. https:\/\/api.anthropic.com \(got "localhost:8080"\)$/],
    [{ OPENAI_BASE_URL: "ftp://llm.local/v1" }, /^invalid OPENAI_BASE_URL: an http\(s\) URL with its scheme/],
    [{ DAYTONA_API_URL: "daytona.local:3000" }, /^invalid DAYTONA_API_URL: an http\(s\) URL with its scheme, e.g. https:\/\/app.daytona.io\/api \(got "daytona.local:3000"\)$/],
    [{ E2B_API_URL: "e2b.local" }, /^invalid E2B_API_URL: an http\(s\) URL/],
    [{ SANDBOX_MEMORY_MB: "lots" }, /^invalid SANDBOX_MEMORY_MB: .* \(got "lots"\)$/],
    [{ SANDBOX_TYPE: "docker" }, /^invalid SANDBOX_TYPE: .*local.* \(got "docker"\)$/],
  ])("%j is refused at start-up with the allowed values", (env, message) => {
    expect(() => readConfig(env)).toThrow(ConfigError);
    expect(() => readConfig(env)).toThrow(message);
  });

  it.each([
    [{ OPEN_SWE_MODEL: "openai:gpt-4o" }, "openai:gpt-4o"],
    [{ OPEN_SWE_MODEL: "claude-opus-4-7" }, "claude-opus-4-7"],
    [{ OPEN_SWE_MODEL: "anthropic:claude-sonnet-4-5-20250929" }, "anthropic:claude-sonnet-4-5-20250929"],
  ])("%j is accepted", (env, model) => {
    expect(readConfig(env).model.model).toBe(model);
  });

  it("a readable replay script is accepted; a bad one is refused at start-up", () => {
    const dir = mkdtempSync(join(tmpdir(), "replay-"));
    writeFileSync(join(dir, "ok.json"), JSON.stringify([{ text: "done" }]));
    writeFileSync(join(dir, "bad.json"), "{not json");
    writeFileSync(join(dir, "empty.json"), "[]");
    expect(readConfig({ OPEN_SWE_MODEL: "replay:ok.json" }, dir).model.model).toBe("replay:ok.json");
    expect(() => readConfig({ OPEN_SWE_MODEL: "replay:bad.json" }, dir)).toThrow(/^invalid OPEN_SWE_MODEL: replay script .*bad.json is not JSON/);
    expect(() => readConfig({ OPEN_SWE_MODEL: "replay:empty.json" }, dir)).toThrow(/^invalid OPEN_SWE_MODEL: replay script .*empty.json is invalid/);
  });

  it.each([
    ["METRICS_TOKEN", { METRICS_TOKEN: "hunter2" }],
    ["OPEN_SWE_SECRET_KEY", { OPEN_SWE_SECRET_KEY: "hunter2-not-hex" }],
    ["JIRA_WEBHOOK_SECRET", { JIRA_WEBHOOK_SECRET: "hunter2" }],
    ["QUEUE_REDIS_URL", { QUEUE_REDIS_URL: "http://user:hunter2@redis.internal:6379" }],
  ])("a refused %s never shows the secret's value", (_name, env) => {
    const err = (() => {
      try {
        readConfig(env as Record<string, string>);
      } catch (e) {
        return e as Error;
      }
      throw new Error("accepted");
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).not.toContain("hunter2");
  });

  it("GitHub's API base: GITHUB_API_URL (http allowed) over GHE_HOST's /api/v3", () => {
    const app = { APP_ID: "1", PRIVATE_KEY: testPrivateKey(), WEBHOOK_SECRET: "s" };
    expect(readConfig(app).github?.baseUrl).toBeUndefined();
    expect(readConfig({ ...app, GHE_HOST: "github.acme.internal" }).github?.baseUrl).toBe("https://github.acme.internal/api/v3");
    expect(readConfig({ ...app, GHE_HOST: "github.acme.internal", GITHUB_API_URL: "http://127.0.0.1:8080/api/v3/" }).github?.baseUrl).toBe("http://127.0.0.1:8080/api/v3");
  });

  it("requires the webhook secret with app credentials", () => {
    expect(() => readConfig({ APP_ID: "1", PRIVATE_KEY: testPrivateKey() })).toThrow(/missing WEBHOOK_SECRET/);
  });
});
