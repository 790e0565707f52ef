import nock from "nock";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { createGitHubAuth } from "../../src/github/app-auth.js";
import { botGitPerson, resolveBotIdentity } from "../../src/github/bot-identity.js";
import { mockInstallationToken, testPrivateKey } from "../helpers/github-app.js";
import { testSigner } from "../helpers/job-signer.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const API = "https://api.github.com";

describe("botGitPerson", () => {
  it.each([
    ["the app's bot, linked by its id", "acme-swe", 4242, { name: "acme-swe[bot]", email: "4242+acme-swe[bot]@users.noreply.github.com" }],
    ["no id known: the id-less address, never an invented id", "open-swe", null, { name: "open-swe[bot]", email: "open-swe[bot]@users.noreply.github.com" }],
  ] as const)("%s", (_name, slug, id, want) => {
    expect(botGitPerson(slug, id)).toEqual(want);
  });
});

describe("resolveBotIdentity", () => {
  const lines: Array<{ msg: string }> = [];
  const log = pino({ level: "warn" }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  const auth = () =>
    createGitHubAuth(
      { appId: "77", privateKey: testPrivateKey(), webhookSecret: "s" },
      { log: pino({ level: "silent" }), octokitDefaults: { retry: { enabled: false }, throttle: { enabled: false } } },
    );
  const opts = async (prefix: string) => ({ octokit: await auth().installation(9), redis: testRedis(), prefix, appId: "77", fallbackSlug: "open-swe", signer: testSigner(), log });

  it("reads the slug from GET /app and the bot's id from GET /users/<slug>[bot] once, then from Redis", async () => {
    const prefix = uniquePrefix();
    mockInstallationToken(9);
    nock(API).get("/app").reply(200, { id: 77, slug: "acme-swe", name: "Acme SWE" });
    nock(API).get("/users/acme-swe%5Bbot%5D").reply(200, { login: "acme-swe[bot]", id: 4242, type: "Bot" });
    const want = { name: "acme-swe[bot]", email: "4242+acme-swe[bot]@users.noreply.github.com" };
    expect(await resolveBotIdentity(await opts(prefix))).toEqual(want);
    // No mock left: a second read that went to GitHub would fail over to the id-less fallback.
    expect(await resolveBotIdentity(await opts(prefix))).toEqual(want);
    expect(JSON.parse((await testRedis().get(`${prefix}:bot-account:77`))!)).toEqual({ slug: "acme-swe", id: 4242 });
  });

  it.each([
    ["GitHub down on GET /app", () => nock(API).get("/app").reply(503, { message: "unavailable" })],
    [
      "no bot user found",
      () => {
        nock(API).get("/app").reply(200, { id: 77, slug: "acme-swe" });
        mockInstallationToken(9);
        nock(API).get("/users/acme-swe%5Bbot%5D").reply(404, { message: "Not Found" });
      },
    ],
  ])("%s: the configured slug without an id, one warning, nothing cached", async (_name, mock) => {
    const prefix = uniquePrefix();
    mock();
    lines.length = 0;
    expect(await resolveBotIdentity(await opts(prefix))).toEqual({ name: "open-swe[bot]", email: "open-swe[bot]@users.noreply.github.com" });
    expect(lines.map((l) => l.msg)).toEqual(["cannot read the app's bot account from GitHub: commits are authored without the bot's id this run"]);
    expect(await testRedis().exists(`${prefix}:bot-account:77`)).toBe(0);
  });

  it("a cached account sealed for another app does not hold for this one: read again from GitHub, one warning", async () => {
    const prefix = uniquePrefix();
    const json = JSON.stringify({ slug: "other-app", id: 9 });
    // A genuine seal, but over app 78's entry: copied under app 77's key it does not hold.
    await testRedis().set(`${prefix}:bot-account:77`, json);
    await testRedis().set(`${prefix}:bot-account:77:seal`, testSigner().seal("bot-account v1", `78\n${json}`));
    mockInstallationToken(9);
    nock(API).get("/app").reply(200, { id: 77, slug: "acme-swe", name: "Acme SWE" });
    nock(API).get("/users/acme-swe%5Bbot%5D").reply(200, { login: "acme-swe[bot]", id: 4242, type: "Bot" });
    lines.length = 0;
    expect(await resolveBotIdentity(await opts(prefix))).toEqual({ name: "acme-swe[bot]", email: "4242+acme-swe[bot]@users.noreply.github.com" });
    expect(lines.map((l) => l.msg)).toEqual(["bot account cache ignored: its seal does not hold (written outside the worker, or altered); reading it from GitHub"]);
  });
});
