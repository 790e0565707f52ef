import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConfig } from "../src/config/env.js";
import { startupSummary, type StartupSummaryInput } from "../src/startup-summary.js";

const REPLAY = join(mkdtempSync(join(tmpdir(), "replay-")), "r.json");
writeFileSync(REPLAY, JSON.stringify([{ text: "done" }]));

const input = (env: Record<string, string>, over: Partial<StartupSummaryInput> = {}): StartupSummaryInput => ({
  role: "all",
  config: readConfig(env, "/srv"),
  redis: "embedded",
  port: 3000,
  ...over,
});

describe("startupSummary", () => {
  it.each([
    ["nothing set", {}, {}, ["ANTHROPIC_API_KEY"]],
    ["anthropic key set", { ANTHROPIC_API_KEY: "sk" }, {}, []],
    ["e2b without its key", { ANTHROPIC_API_KEY: "sk", SANDBOX_TYPE: "e2b" }, {}, ["E2B_API_KEY"]],
    ["daytona without key, openai model without key", { SANDBOX_TYPE: "daytona", OPEN_SWE_MODEL: "openai:gpt-5" }, {}, ["OPENAI_API_KEY", "DAYTONA_API_KEY"]],
    ["modal without tokens", { ANTHROPIC_API_KEY: "sk", SANDBOX_TYPE: "modal" }, {}, ["MODAL_TOKEN_ID", "MODAL_TOKEN_SECRET"]],
    ["replay needs no key", { OPEN_SWE_MODEL: `replay:${REPLAY}` }, {}, []],
    ["the web role needs neither", {}, { role: "web" as const }, []],
    ["a failed isolation check", { ANTHROPIC_API_KEY: "sk" }, { sandboxIsolation: { ok: false, reason: "no user namespaces" } }, ["SANDBOX_TYPE"]],
  ])("%s → warnings %j", (_name, env, over, keys) => {
    expect(startupSummary(input(env, over)).warnings.map((w) => w.key)).toEqual(keys);
  });

  it("one line per role: what it serves, which Redis, sandbox and its isolation, model and its key", () => {
    const s = startupSummary(
      input({ APP_SLUG: "acme-bot", WEBHOOK_PROXY_URL: "https://smee.io/x", SANDBOX_TYPE: "e2b", E2B_API_KEY: "e", TAVILY_API_KEY: "t" }, {
        sandboxIsolation: { ok: true, detail: "bwrap ok" },
        redis: "external",
      }),
    );
    expect(s.lines).toEqual([
      { role: "web", fields: { redis: "external", port: 3000, publicUrl: "https://smee.io/x", webhookPath: "/api/github/webhooks", sources: ["github"], mentions: ["@acme-bot", "@acmebot"] } },
      {
        role: "worker",
        fields: { redis: "external", sandbox: "e2b", sandboxIsolation: "passed: bwrap ok", model: "anthropic:claude-sonnet-4-6", modelKey: "missing", webSearch: "tavily", concurrency: 4 },
      },
    ]);
    expect(s.warnings).toEqual([{ key: "ANTHROPIC_API_KEY", message: "ANTHROPIC_API_KEY is not set: every agent run and review on anthropic:claude-sonnet-4-6 will fail until it is" }]);
  });

  it("the web line names the sources it serves and, once, those refusing every request for want of their secret", () => {
    const s = startupSummary(input({ ANTHROPIC_API_KEY: "sk" }, { role: "web", sources: [{ name: "slack", configured: false, secretEnv: "SLACK_SIGNING_SECRET" }, { name: "linear", configured: true }] }));
    expect(s.lines[0]!.fields).toMatchObject({ sources: ["github", "linear"], sourcesRefusing: ["slack: SLACK_SIGNING_SECRET is not set, every request to its routes gets 401"] });
    expect(s.warnings).toEqual([]);
  });
});
