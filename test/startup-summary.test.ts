import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConfig } from "../src/config/env.js";
import { startupSummary, type StartupSummaryInput } from "../src/startup-summary.js";
import { confluenceSource } from "../src/sources/confluence/confluence-source.js";
import { jiraSource } from "../src/sources/jira/jira-source.js";

const REPLAY = join(mkdtempSync(join(tmpdir(), "replay-")), "r.json");
writeFileSync(REPLAY, JSON.stringify([{ text: "done" }]));

const input = (env: Record<string, string>, over: Partial<StartupSummaryInput> = {}): StartupSummaryInput => ({
  role: "all",
  config: readConfig({ APP_URL: "https://swe.example.com", ...env }, "/srv"),
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
      input(
        { APP_SLUG: "acme-bot", WEBHOOK_PROXY_URL: "https://smee.io/x", SANDBOX_TYPE: "e2b", E2B_API_KEY: "e", TAVILY_API_KEY: "t" },
        {
          sandboxIsolation: { ok: true, detail: "bwrap ok" },
          redis: "external",
        },
      ),
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

  it.each([
    ["dist", "dist/ (compiled)"],
    ["tsx", "src/ through tsx (npm run build, or npm start, compiles dist/)"],
  ] as const)("each line says which form runs: %s", (runtime, said) => {
    const s = startupSummary(input({ ANTHROPIC_API_KEY: "sk" }, { runtime }));
    expect(s.lines.map((l) => l.fields["runtime"])).toEqual([said, said]);
  });

  it("the web line names the sources it serves and, once, those refusing every request for want of their secret", () => {
    const s = startupSummary(
      input(
        { ANTHROPIC_API_KEY: "sk" },
        {
          role: "web",
          sources: [
            { name: "slack", configured: false, secretEnv: "SLACK_SIGNING_SECRET" },
            { name: "linear", configured: true },
          ],
        },
      ),
    );
    expect(s.lines[0]!.fields).toMatchObject({ sources: ["github", "linear"], sourcesRefusing: ["slack: SLACK_SIGNING_SECRET is not set, every request to its routes gets 401"] });
    expect(s.warnings).toEqual([]);
  });

  it("a source missing settings other than its secret names those, not a variable that is set", () => {
    const base = { LOG_LEVEL: "silent" };
    const jira = jiraSource(readConfig({ ...base, JIRA_BASE_URL: "https://acme.atlassian.net", JIRA_WEBHOOK_SECRET: "j".repeat(32) }, "/srv").env);
    const confluence = confluenceSource(readConfig({ ...base, CONFLUENCE_SITES: "acme.atlassian.net", OPEN_SWE_SECRET_KEY: "a".repeat(64) }, "/srv").env, null);
    const s = startupSummary(input({ ANTHROPIC_API_KEY: "sk" }, { role: "web", sources: [jira, confluence] }));
    expect(s.lines[0]!.fields["sourcesRefusing"]).toEqual([
      "jira: JIRA_EMAIL, JIRA_API_TOKEN are not set, every request to its routes gets 401",
      "confluence: APP_URL is not set, every request to its routes gets 401",
    ]);
  });

  it("a Connect install warns once, naming the end of support and the migration; the Automation path alone does not", () => {
    const base = { LOG_LEVEL: "silent", APP_URL: "https://swe.example.com", OPEN_SWE_SECRET_KEY: "a".repeat(64) };
    const redis = { redis: {} as never };
    const connect = confluenceSource(readConfig({ ...base, CONFLUENCE_SITES: "acme.atlassian.net" }, "/srv").env, redis);
    const s = startupSummary(input({ ANTHROPIC_API_KEY: "sk" }, { role: "web", sources: [connect] }));
    expect(s.warnings).toEqual([
      {
        key: "CONFLUENCE_SITES",
        message:
          "Confluence runs through Atlassian Connect (CONFLUENCE_SITES), whose support ends 2026-12-31, after which it may stop without notice: set CONFLUENCE_BASE_URL, CONFLUENCE_EMAIL, CONFLUENCE_API_TOKEN, CONFLUENCE_WEBHOOK_SECRET, create the Automation rule that posts to <APP_URL>/webhooks/confluence/automation (README, From Confluence), then uninstall the Connect app and unset CONFLUENCE_SITES",
      },
    ]);
    expect(s.lines[0]!.fields["sources"]).toEqual(["github", "confluence"]);
    const automation = { CONFLUENCE_BASE_URL: "https://acme.atlassian.net", CONFLUENCE_EMAIL: "bot@acme.test", CONFLUENCE_API_TOKEN: "t", CONFLUENCE_WEBHOOK_SECRET: "c".repeat(32) };
    const moved = confluenceSource(readConfig({ ...base, ...automation }, "/srv").env, redis);
    const after = startupSummary(input({ ANTHROPIC_API_KEY: "sk" }, { role: "web", sources: [moved] }));
    expect(after.warnings).toEqual([]);
    expect(after.lines[0]!.fields["sources"]).toEqual(["github", "confluence"]);
    // Neither: the Automation variables are what it names.
    const none = confluenceSource(readConfig(base, "/srv").env, redis);
    expect(startupSummary(input({ ANTHROPIC_API_KEY: "sk" }, { role: "web", sources: [none] })).lines[0]!.fields["sourcesRefusing"]).toEqual([
      "confluence: CONFLUENCE_BASE_URL, CONFLUENCE_EMAIL, CONFLUENCE_API_TOKEN, CONFLUENCE_WEBHOOK_SECRET are not set, every request to its routes gets 401",
    ]);
  });

  it.each([
    [
      "no APP_URL, no smee channel",
      { APP_URL: "" },
      /^GitHub cannot reach this app's webhook: neither APP_URL nor WEBHOOK_PROXY_URL is set, so the app was registered with a localhost webhook URL\. Put a tunnel in front of port 3000, set APP_URL/,
    ],
    ["APP_URL on localhost", { APP_URL: "http://localhost:3000" }, /^GitHub cannot reach this app's webhook: APP_URL \(http:\/\/localhost:3000\) is a local address/],
    ["APP_URL on 127.0.0.1", { APP_URL: "http://127.0.0.1:8080" }, /is a local address/],
    ["a smee channel relays it", { APP_URL: "", WEBHOOK_PROXY_URL: "https://smee.io/x" }, null],
    ["a public APP_URL", { APP_URL: "https://swe.example.com" }, null],
  ])("webhook reachability: %s", (_name, env, warning) => {
    const s = startupSummary(input({ ANTHROPIC_API_KEY: "sk", ...env }, { role: "web" }));
    const found = s.warnings.find((w) => w.key === "APP_URL");
    if (warning === null) expect(found).toBeUndefined();
    else expect(found?.message).toMatch(warning);
  });

  it.each([
    [
      {},
      { role: "web" as const },
      {
        url: "https://swe.example.com/app",
        signIn: false,
        message: "dashboard at https://swe.example.com/app; sign-in off: set GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET (the setup flow saves them)",
      },
    ],
    [
      { APP_URL: "", GITHUB_CLIENT_ID: "Iv1", GITHUB_CLIENT_SECRET: "s" },
      { port: 4000 },
      { url: "http://localhost:4000/app", signIn: true, message: "dashboard at http://localhost:4000/app; sign-in on" },
    ],
    [{}, { role: "worker" as const }, undefined],
  ])("the dashboard line for %j %j", (env, over, expected) => {
    expect(startupSummary(input(env as Record<string, string>, over)).dashboard).toEqual(expected);
  });
});
