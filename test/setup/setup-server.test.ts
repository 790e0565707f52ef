import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "node:util";
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { readConfig } from "../../src/config/env.js";
import { createLogger } from "../../src/logger.js";
import { startSetupServer, type SetupServer } from "../../src/setup/setup-server.js";

const servers: SetupServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function start(env: Record<string, string>, cwd = mkdtempSync(join(tmpdir(), "setup-"))) {
  const lines: string[] = [];
  const log = createLogger("info", "open-swe", { write: (l: string) => void lines.push(l) });
  const server = await startSetupServer({ config: readConfig(env, cwd), log, cwd, port: 0, host: "127.0.0.1" });
  servers.push(server);
  return { server, cwd, lines, url: (p: string) => `http://127.0.0.1:${server.port}${p}` };
}

const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
async function manifestOf(url: string): Promise<Record<string, any>> {
  const html = await (await fetch(url)).text();
  return JSON.parse(unescape(/name="manifest" value="([^"]*)"/.exec(html)![1]!));
}
/** The manifest flow's state as the page hands it to GitHub, and the cookie this browser got with it. */
async function stateOf(url: string): Promise<{ state: string; cookie: string }> {
  const res = await fetch(url);
  return { state: /\?state=([A-Za-z0-9_-]+)/.exec(await res.text())![1]!, cookie: res.headers.getSetCookie()[0]!.split(";")[0]! };
}
const envFile = (cwd: string) => parseEnv(readFileSync(join(cwd, ".env"), "utf8"));
const mode = (cwd: string) => statSync(join(cwd, ".env")).mode & 0o777;

describe("setup flow", () => {
  it("creates a smee channel, saves it to .env (0600) and registers it as the app's webhook URL", async () => {
    nock("https://smee.io").head("/new").reply(307, "", { location: "https://smee.io/Ch4nnel" });
    const { cwd, url } = await start({});
    expect(envFile(cwd)).toEqual({ WEBHOOK_PROXY_URL: "https://smee.io/Ch4nnel" });
    expect(mode(cwd)).toBe(0o600);
    const manifest = await manifestOf(url("/probot"));
    expect(manifest.hook_attributes).toEqual({ url: "https://smee.io/Ch4nnel", active: true });
    expect(manifest.redirect_url).toBe(`${url("")}/probot/setup`);
    expect(manifest.default_events).toContain("pull_request_review_comment");
    expect(manifest.name).toBe("Open SWE");
  });

  it("with APP_URL, the manifest's webhook is <APP_URL>/api/github/webhooks and no channel is made", async () => {
    const { url, cwd } = await start({ APP_URL: "https://swe.example.com/" });
    const manifest = await manifestOf(url("/probot"));
    expect(manifest.hook_attributes.url).toBe("https://swe.example.com/api/github/webhooks");
    expect(manifest.redirect_url).toBe("https://swe.example.com/probot/setup");
    expect(manifest.callback_urls).toEqual(["https://swe.example.com/auth/callback"]);
    expect(() => statSync(join(cwd, ".env"))).toThrow();
  });

  it("when smee.io cannot make a channel, says in one warning what to set, and falls back to this origin's webhook path", async () => {
    nock("https://smee.io").head("/new").reply(503);
    const { url, lines } = await start({});
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].msg).toMatch(/could not create a smee.io channel: set APP_URL/);
    expect((await manifestOf(url("/probot"))).hook_attributes.url).toBe(`${url("")}/api/github/webhooks`);
  });

  it("the existing-app page shows the webhook URL to paste", async () => {
    const { url } = await start({ WEBHOOK_PROXY_URL: "https://smee.io/Mine" });
    const html = await (await fetch(url("/probot/import"))).text();
    expect(html).toMatch(/Webhook URL with\s*<code id="webhook-url">https:\/\/smee.io\/Mine<\/code>/);
  });

  it("/health answers in setup mode", async () => {
    const { url } = await start({ NO_SMEE_SETUP: "true" });
    const res = await fetch(url("/health"));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "setup" });
  });

  it("the manifest conversion writes APP_ID, APP_SLUG, the key and the secret to .env (0600, other lines kept); the slug becomes the mention handles", async () => {
    const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
    const cwd = mkdtempSync(join(tmpdir(), "setup-"));
    writeFileSync(join(cwd, ".env"), "# mine\nANTHROPIC_API_KEY=sk-ant-keep\nAPP_ID=999\n", { mode: 0o644 });
    nock("https://api.github.com")
      .post("/app-manifests/c0de/conversions")
      .reply(201, { id: 4242, slug: "acme-swe-bot", name: "Acme SWE Bot", html_url: "https://github.com/apps/acme-swe-bot", pem, webhook_secret: "whs", client_id: "Iv1", client_secret: "cs" });
    const { url } = await start({ WEBHOOK_PROXY_URL: "https://smee.io/x" }, cwd);
    const { state, cookie } = await stateOf(url("/probot"));
    const res = await fetch(url(`/probot/setup?code=c0de&state=${state}`), { redirect: "manual", headers: { cookie } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://github.com/apps/acme-swe-bot/installations/new");
    expect(mode(cwd)).toBe(0o600);
    expect(readFileSync(join(cwd, ".env"), "utf8")).toMatch(/^# mine\nANTHROPIC_API_KEY=sk-ant-keep\n/);
    const saved = envFile(cwd);
    expect(saved).toMatchObject({ APP_ID: "4242", APP_SLUG: "acme-swe-bot", WEBHOOK_SECRET: "whs", ANTHROPIC_API_KEY: "sk-ant-keep" });
    // The app's OAuth client, for the dashboard's sign-in.
    expect(saved).toMatchObject({ GITHUB_CLIENT_ID: "Iv1", GITHUB_CLIENT_SECRET: "cs" });
    const config = readConfig(saved, cwd);
    expect(config.github).toMatchObject({ appId: "4242", privateKey: pem, webhookSecret: "whs" });
    expect(config.env.MENTION_HANDLES).toEqual(["acme-swe-bot", "acmeswebot"]);
    expect(config.botLogins).toContain("acme-swe-bot[bot]");
  });

  it("a failed conversion is a 502 page with GitHub's reason; .env is untouched", async () => {
    nock("https://api.github.com").post("/app-manifests/old/conversions").reply(404, { message: "Not Found" });
    const { url, cwd } = await start({ NO_SMEE_SETUP: "true" });
    const { state, cookie } = await stateOf(url("/probot"));
    const res = await fetch(url(`/probot/setup?code=old&state=${state}`), { headers: { cookie } });
    expect(res.status).toBe(502);
    expect(await res.text()).toContain("GitHub answered 404 to the manifest conversion");
    expect(() => statSync(join(cwd, ".env"))).toThrow();
  });

  it("importing an existing app refuses a body without a key, saying which field", async () => {
    const { url, cwd } = await start({ NO_SMEE_SETUP: "true" });
    const form = await fetch(url("/probot/import"));
    const headers = { "content-type": "application/json", "x-setup-csrf": /data-csrf="([^"]+)"/.exec(await form.text())![1]!, cookie: form.headers.getSetCookie()[0]!.split(";")[0]! };
    const bad = await fetch(url("/probot/import"), { method: "POST", headers, body: JSON.stringify({ appId: "7", pem: "nope", webhook_secret: "s" }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "pem: a PEM private key" });
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----\n";
    const good = await fetch(url("/probot/import"), { method: "POST", headers, body: JSON.stringify({ appId: "7", pem, webhook_secret: "s", slug: "my-app" }) });
    expect(good.status).toBe(200);
    expect(envFile(cwd)).toEqual({ APP_ID: "7", PRIVATE_KEY: pem, WEBHOOK_SECRET: "s", APP_SLUG: "my-app" });
    expect(mode(cwd)).toBe(0o600);
  });
});
