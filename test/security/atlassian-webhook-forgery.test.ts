import { createHmac, generateKeyPairSync } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfig } from "../../src/config/env.js";
import type { RunningProcess } from "../../src/main.js";
import { connectQsh } from "../../src/sources/confluence/connect-jwt.js";
import { confluenceSource } from "../../src/sources/confluence/confluence-source.js";
import { JIRA_SECRET_HEADER } from "../../src/sources/jira/verify-jira-request.js";
import { redisSocket, redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import { APP_URL, CLIENT_KEY, KID, SECRET_KEY, SHARED_SECRET, SITE, atlassianKeys, commentCreated, installToken, lifecycleBody, webhookToken } from "../fixtures/confluence/connect.js";
import { BASE_URL as JIRA_BASE, commentCreated as jiraComment } from "../fixtures/jira/payloads.js";

const JIRA_SECRET = "jira-webhook-secret-0123456789";
const attacker = generateKeyPairSync("rsa", { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } });

describe("Atlassian routes refuse forged deliveries (real HTTP, real server, real Redis)", () => {
  let proc: RunningProcess;
  let sourceRedis: Redis;
  const prefix = uniquePrefix();
  const url = (p: string) => `http://127.0.0.1:${proc.port}${p}`;
  const post = (path: string, body: string, headers: Record<string, string>) => fetch(url(path), { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const queued = async () => (await proc.queues.queues["source-event"].getJobs(["waiting", "delayed", "active", "completed", "failed"])).map((j) => j.data as { source: string; dedupeKey: string });
  const hub = (body: string, secret = JIRA_SECRET) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  const installKeyRequests: string[] = [];

  beforeAll(async () => {
    const env = {
      QUEUE_REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      APP_URL,
      OPEN_SWE_SECRET_KEY: SECRET_KEY,
      CONFLUENCE_SITES: SITE,
      JIRA_BASE_URL: JIRA_BASE,
      JIRA_EMAIL: "bot@acme.test",
      JIRA_API_TOKEN: "token",
      JIRA_WEBHOOK_SECRET: JIRA_SECRET,
    };
    const confluence = confluenceSource(readConfig({ ...env, LOG_LEVEL: "silent" }).env, {
      redis: (sourceRedis = new Redis({ path: redisSocket(), maxRetriesPerRequest: null })),
      // Atlassian's key service, as far as this test is concerned: it knows one kid.
      fetchInstallKey: async (kid) => {
        installKeyRequests.push(kid);
        if (kid !== KID) throw new Error("404");
        return atlassianKeys().publicKey;
      },
    });
    proc = await startTestProcess("web", env, { sources: [confluence] });
  });
  afterAll(async () => {
    await proc?.stop();
    await sourceRedis?.quit();
  });

  describe("Jira", () => {
    it("unsigned, wrongly signed, tampered, wrong shared secret and replayed deliveries get a bare 401 and queue nothing", async () => {
      const body = JSON.stringify(jiraComment({ commentId: "20001" }));
      const old = JSON.stringify(jiraComment({ commentId: "20002", timestamp: Date.now() - 2 * 3600_000 }));
      const attempts = [
        await post("/webhooks/jira", body, {}),
        await post("/webhooks/jira", body, { "x-hub-signature": hub(body, "guessed-secret-0123456789") }),
        await post("/webhooks/jira", body.replace("20001", "20003"), { "x-hub-signature": hub(body) }),
        await post("/webhooks/jira", body, { [JIRA_SECRET_HEADER]: "jira-webhook-secret-012345678" }),
        await post("/webhooks/jira", old, { "x-hub-signature": hub(old) }),
      ];
      for (const res of attempts) {
        expect(res.status).toBe(401);
        expect(await res.text()).toBe("");
      }
      expect((await queued()).filter((d) => d.source === "jira")).toEqual([]);
    });

    it("a genuine delivery is queued once; its redelivery (same comment, new identifier) is not queued again", async () => {
      const body = JSON.stringify(jiraComment({ commentId: "20010" }));
      expect((await post("/webhooks/jira", body, { "x-hub-signature": hub(body), "x-atlassian-webhook-identifier": "1" })).status).toBe(200);
      const again = JSON.stringify(jiraComment({ commentId: "20010", timestamp: Date.now() + 1 }));
      expect(await (await post("/webhooks/jira", again, { [JIRA_SECRET_HEADER]: JIRA_SECRET, "x-atlassian-webhook-identifier": "2" })).json()).toEqual({ ok: true, duplicate: true });
      expect((await queued()).filter((d) => d.source === "jira").map((d) => d.dedupeKey)).toEqual(["jira:acme.atlassian.net:comment:20010"]);
    });
  });

  describe("Confluence (Connect)", () => {
    const install = (body: object, token: string) => post("/connect/installed", JSON.stringify(body), { authorization: `JWT ${token}` });
    const hook = (body: object, token: string) => post("/webhooks/confluence", JSON.stringify(body), { authorization: `JWT ${token}` });
    const installRecord = () => testRedis().hgetall(`${prefix}:confluence:install:${CLIENT_KEY}`);

    it("serves the descriptor with our base URL and signed install", async () => {
      const res = await fetch(url("/connect/atlassian-connect.json"));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ baseUrl: APP_URL, authentication: { type: "jwt" }, apiMigrations: { "signed-install": true }, lifecycle: { installed: "/connect/installed" } });
    });

    it("forged installs are refused and store nothing: attacker's key, attacker's kid, shared-secret signed, unsigned, other app's aud, iss ≠ clientKey", async () => {
      const attempts = [
        await install(lifecycleBody("installed"), installToken({ url: "/connect/installed", privateKey: attacker.privateKey })),
        await install(lifecycleBody("installed"), installToken({ url: "/connect/installed", privateKey: attacker.privateKey, kid: "attacker-kid" })),
        await install(lifecycleBody("installed"), webhookToken({ url: "/connect/installed", secret: SHARED_SECRET })),
        await post("/connect/installed", JSON.stringify(lifecycleBody("installed")), {}),
        await install(lifecycleBody("installed"), installToken({ url: "/connect/installed", aud: "https://someone-else.test" })),
        await install(lifecycleBody("installed", { clientKey: "victim-client-key" }), installToken({ url: "/connect/installed" })),
      ];
      expect(attempts.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 401]);
      expect(installKeyRequests).toContain("attacker-kid");
      expect(await installRecord()).toEqual({});
    });

    it("a genuinely signed install from a site not in CONFLUENCE_SITES is refused (403) and stores nothing", async () => {
      const res = await install(lifecycleBody("installed", { baseUrl: "https://evil.atlassian.net/wiki" }), installToken({ url: "/connect/installed", iat: Math.floor(Date.now() / 1000) - 2 }));
      expect(res.status).toBe(403);
      expect(await installRecord()).toEqual({});
    });

    it("install → webhook queued → forged webhooks refused → forged uninstall refused → uninstall → webhook refused", async () => {
      expect((await install(lifecycleBody("installed"), installToken({ url: "/connect/installed", iat: Math.floor(Date.now() / 1000) - 1 }))).status).toBe(204);
      const record = await installRecord();
      expect(record.baseUrl).toBe(`https://${SITE}/wiki`);
      expect(JSON.stringify(record)).not.toContain(SHARED_SECRET);

      const path = "/webhooks/confluence";
      expect((await hook(commentCreated({ id: "500" }), webhookToken({ url: path }))).status).toBe(200);
      const t = Math.floor(Date.now() / 1000);
      const forged = [
        webhookToken({ url: path, secret: "guessed-secret-0123456789" }),
        webhookToken({ url: path, iat: t - 900, exp: t - 600 }),
        webhookToken({ url: path, iat: t + 900, exp: t + 1200 }),
        webhookToken({ url: path, nbf: t + 600 }),
        webhookToken({ url: path, qsh: connectQsh("POST", "/connect/uninstalled") }),
        webhookToken({ url: path, iss: "unknown-install" }),
        installToken({ url: path }),
        `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(JSON.stringify({ iss: CLIENT_KEY, iat: t, exp: t + 60, qsh: connectQsh("POST", path) })).toString("base64url")}.`,
      ];
      for (const [n, token] of forged.entries()) expect((await hook(commentCreated({ id: String(600 + n) }), token)).status, `forgery ${n}`).toBe(401);

      // The install's own shared secret must not be able to uninstall (signed install: only Atlassian can).
      const byShared = await post("/connect/uninstalled", JSON.stringify(lifecycleBody("uninstalled")), { authorization: `JWT ${webhookToken({ url: "/connect/uninstalled" })}` });
      expect(byShared.status).toBe(401);
      expect((await installRecord()).baseUrl).toBeDefined();

      const un = await post("/connect/uninstalled", JSON.stringify(lifecycleBody("uninstalled")), { authorization: `JWT ${installToken({ url: "/connect/uninstalled" })}` });
      expect(un.status).toBe(204);
      expect(await installRecord()).toEqual({});
      expect((await hook(commentCreated({ id: "700" }), webhookToken({ url: path }))).status).toBe(401);

      expect((await queued()).filter((d) => d.source === "confluence").map((d) => d.dedupeKey)).toEqual([`confluence:${CLIENT_KEY}:comment:500`]);
    });

    it("a Connect token is accepted once: a captured webhook token with another body, or a captured install token, is a 401", async () => {
      const t = Math.floor(Date.now() / 1000);
      const installTok = installToken({ url: "/connect/installed", iat: t - 10 });
      expect((await install(lifecycleBody("installed"), installTok)).status).toBe(204);
      const path = "/webhooks/confluence";
      const captured = webhookToken({ url: path, iat: t - 5 });
      expect((await hook(commentCreated({ id: "800" }), captured)).status).toBe(200);
      // Same token, any body (the token does not sign it): refused, nothing queued.
      const replayed = await hook(commentCreated({ id: "801" }), captured);
      expect(replayed.status).toBe(401);
      expect(await replayed.text()).toBe("");
      // A fresh token from the host is fine.
      expect((await hook(commentCreated({ id: "802" }), webhookToken({ url: path, iat: t - 4 }))).status).toBe(200);
      // The captured install token again, now carrying the attacker's shared secret: refused, the secret stays.
      const before = await installRecord();
      expect((await install(lifecycleBody("installed", { sharedSecret: "attacker-chosen-secret-000000" }), installTok)).status).toBe(401);
      expect(await installRecord()).toEqual(before);
      expect((await hook(commentCreated({ id: "803" }), webhookToken({ url: path, iat: t - 3 }))).status).toBe(200);
      const keys = (await queued()).filter((d) => d.source === "confluence").map((d) => d.dedupeKey);
      expect(keys).toEqual(expect.arrayContaining([`confluence:${CLIENT_KEY}:comment:800`, `confluence:${CLIENT_KEY}:comment:802`, `confluence:${CLIENT_KEY}:comment:803`]));
      expect(keys).not.toContain(`confluence:${CLIENT_KEY}:comment:801`);
    });

    // Signing times in the future (within the leeway) keep these tokens apart from the earlier tests' ones.
    it("an install for an installed client key is a rotation: one signed before the recorded install (or an old uninstall) is refused", async () => {
      const t = Math.floor(Date.now() / 1000);
      expect((await install(lifecycleBody("installed", { sharedSecret: "rotation-secret-one-0000000000" }), installToken({ url: "/connect/installed", iat: t + 3 }))).status).toBe(204);
      const rotated = await installRecord();
      expect(rotated.iat).toBe(String(t + 3));
      // Older than the recorded one (a token captured before the rotation, within its life): refused, nothing changes.
      expect((await install(lifecycleBody("installed", { sharedSecret: "attacker-chosen-secret-000000" }), installToken({ url: "/connect/installed", iat: t - 7 }))).status).toBe(401);
      expect(await installRecord()).toEqual(rotated);
      const oldUninstall = await post("/connect/uninstalled", JSON.stringify(lifecycleBody("uninstalled")), { authorization: `JWT ${installToken({ url: "/connect/uninstalled", iat: t - 7 })}` });
      expect(oldUninstall.status).toBe(401);
      expect(await installRecord()).toEqual(rotated);
      // Newer: the rotation is taken, with its own signing time.
      expect((await install(lifecycleBody("installed", { sharedSecret: "rotation-secret-two-0000000000" }), installToken({ url: "/connect/installed", iat: t + 5 }))).status).toBe(204);
      expect((await installRecord()).iat).toBe(String(t + 5));
      expect((await installRecord()).secret).not.toBe(rotated.secret);
    });
  });
});
