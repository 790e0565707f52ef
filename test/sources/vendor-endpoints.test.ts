import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { startProcess, type RunningProcess } from "../../src/main.js";
import { buildSourceRegistry } from "../../src/sources/registry.js";
import { testConfig } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { SLACK_SECRET, signSlack } from "./slack/slack-fixture.js";
import { slackBody } from "../contracts/slack-contract.js";

const procs: RunningProcess[] = [];
afterEach(async () => {
  for (const p of procs.splice(0)) await p.stop();
});

describe("vendor endpoints are configurable", () => {
  it("SLACK_API_URL: the worker's Slack client talks to that base (GovSlack, a proxy), over http too", async () => {
    const config = testConfig({ SLACK_SIGNING_SECRET: SLACK_SECRET, SLACK_BOT_TOKEN: "xoxb-t", SLACK_API_URL: "http://slack.gov.example:8080/api" });
    const client = buildSourceRegistry(config).get("slack")!.client(createLogger("silent"));
    const react = nock("http://slack.gov.example:8080")
      .post("/api/reactions.add")
      .reply(200, slackBody("reactions.add", { ok: true }));
    const tool = client.tools({ team: "T1", channel: "C1", ts: "20.1", threadTs: "10.1" }).find((t) => t.name === "slack_add_reaction")!;
    expect(await tool.invoke({ name: "eyes" })).toBe("Reacted with :eyes:.");
    expect(react.isDone()).toBe(true);
  });

  it("LINEAR_API_URL: the worker's Linear client posts its GraphQL there", async () => {
    const config = testConfig({ LINEAR_WEBHOOK_SECRET: "lin-secret", LINEAR_API_KEY: "lin_api_t", LINEAR_API_URL: "https://linear.mirror.example/graphql" });
    const client = buildSourceRegistry(config).get("linear")!.client(createLogger("silent"));
    const ack = nock("https://linear.mirror.example")
      .post("/graphql", (b: { query?: string }) => /reactionCreate/.test(b.query ?? ""))
      .reply(200, { data: { reactionCreate: { success: true } } });
    await client.acknowledge({ issueId: "ISS-1", trigger: "comment", commentId: "c1", parentId: "c1" });
    expect(ack.isDone()).toBe(true);
  });

  it("a Slack message that names none of our handles gets one info line saying so", async () => {
    const lines: string[] = [];
    const config = testConfig({ SLACK_SIGNING_SECRET: SLACK_SECRET, SLACK_BOT_TOKEN: "xoxb-t", QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix(), LOG_LEVEL: "info" });
    const proc = await startProcess({ role: "web", config, log: createLogger("info", "open-swe", { write: (l: string) => void lines.push(l) }), port: 0, host: "127.0.0.1" });
    procs.push(proc);
    const body = JSON.stringify({
      type: "event_callback",
      team_id: "T1",
      event_id: "Ev1",
      authorizations: [{ team_id: "T1", user_id: "UBOT", is_bot: true }],
      event: { type: "message", channel_type: "channel", user: "U1", text: "hey @openswe can you look", ts: "1.1", channel: "C1" },
    });
    const res = await fetch(`http://127.0.0.1:${proc.port}/webhooks/slack`, { method: "POST", headers: signSlack(body, new Date()), body });
    expect(res.status).toBe(200);
    const logged = lines.map((l) => JSON.parse(l) as { level: number; msg: string; reason?: string; source?: string });
    expect(logged.filter((l) => /mentions none of our handles/.test(l.msg))).toEqual([
      expect.objectContaining({ level: 30, source: "slack", reason: "message does not address the app", msg: "source message ignored: it mentions none of our handles" }),
    ]);
  });

  it.each([
    [{}, "https://github.com"],
    [{ GHE_HOST: "ghe.acme.example" }, "https://ghe.acme.example"],
  ])("the dashboard's CSP lets forms reach GitHub's web host for OAuth (%j)", async (env, host) => {
    const config = testConfig({ ...env, GITHUB_CLIENT_ID: "Iv1", GITHUB_CLIENT_SECRET: "cs", QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix() });
    const proc = await startProcess({ role: "web", config, log: createLogger("silent"), port: 0, host: "127.0.0.1" });
    procs.push(proc);
    const res = await fetch(`http://127.0.0.1:${proc.port}/auth/sign-in`);
    expect(res.headers.get("content-security-policy")).toContain(`form-action 'self' ${host}`);
    if (host !== "https://github.com") expect(res.headers.get("content-security-policy")).not.toContain("https://github.com");
  });
});
