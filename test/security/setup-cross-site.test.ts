import { generateKeyPairSync } from "node:crypto";
import { request } from "node:http";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { readConfig } from "../../src/config/env.js";
import { createLogger } from "../../src/logger.js";
import { startSetupServer, type SetupServer } from "../../src/setup/setup-server.js";

// Setup mode writes the app's credentials to .env: whoever gets it to convert a manifest code or import
// a key owns the installation. These are the attacks of a page elsewhere in the operator's browser.

const servers: SetupServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function start(env: Record<string, string> = {}, host?: string) {
  const cwd = mkdtempSync(join(tmpdir(), "setup-attack-"));
  const log = createLogger("silent");
  const server = await startSetupServer({ config: readConfig({ NO_SMEE_SETUP: "true", ...env }, cwd), log, cwd, port: 0, ...(host ? { host } : {}) });
  servers.push(server);
  return { server, cwd, envWritten: () => existsSync(join(cwd, ".env")) };
}

/** Raw HTTP, so Host, Origin and Sec-Fetch-Site are exactly what an attacking browser sends. */
function send(
  port: number,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method: o.method ?? "GET", path: o.path, headers: { host: `127.0.0.1:${port}`, ...o.headers } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(o.body);
  });
}

const cookieOf = (headers: Record<string, string | string[] | undefined>, name: string) => {
  const all = ([] as string[]).concat(headers["set-cookie"] ?? []);
  return all.map((c) => c.split(";")[0]!).find((c) => c.startsWith(`${name}=`));
};

const PEM = "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----\n";
const IMPORT = JSON.stringify({ appId: "666", pem: PEM, webhook_secret: "attacker-knows" });

describe("setup mode attacks", () => {
  it("listens on loopback unless SETUP_HOST says otherwise (HOST is the live server's, not setup's)", async () => {
    const { server } = await start({ HOST: "0.0.0.0" });
    expect(server.address).toBe("127.0.0.1");
  });

  it("a manifest code without the state this browser was given converts nothing and writes nothing", async () => {
    const { server, envWritten } = await start();
    // No nock for the conversion: reaching GitHub would fail the test (network is off, unused mocks fail).
    const bare = await send(server.port, { path: "/probot/setup?code=attackers-code" });
    expect(bare.status).toBe(400);
    expect(bare.body).toContain("does not come from a registration started in this browser");
    // The operator's browser holds a state; the attacker's link carries another (his own visit's) or none.
    const victim = await send(server.port, { path: "/probot" });
    const victimCookie = cookieOf(victim.headers, "osw_setup_state")!;
    const attacker = await send(server.port, { path: "/probot" });
    const attackerState = /state=([A-Za-z0-9_-]+)/.exec(attacker.body)![1]!;
    for (const path of ["/probot/setup?code=attackers-code", `/probot/setup?code=attackers-code&state=${attackerState}`, "/probot/setup?code=attackers-code&state="]) {
      const res = await send(server.port, { path, headers: { cookie: victimCookie, "sec-fetch-site": "cross-site" } });
      expect(res.status, path).toBe(400);
    }
    expect(envWritten()).toBe(false);
  });

  it("the operator's own round trip still converts once, and its state cannot convert a second code", async () => {
    const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
    const { server, cwd } = await start();
    const page = await send(server.port, { path: "/probot" });
    const state = /settings\/apps\/new\?state=([A-Za-z0-9_-]+)/.exec(page.body)![1]!;
    const stateCookie = cookieOf(page.headers, "osw_setup_state")!;
    expect(stateCookie).toBe(`osw_setup_state=${state}`);
    expect(([] as string[]).concat(page.headers["set-cookie"]!)[0]).toMatch(/HttpOnly; SameSite=Lax/);
    nock("https://api.github.com").post("/app-manifests/good/conversions").reply(201, { id: 7, slug: "mine", html_url: "https://github.com/apps/mine", pem, webhook_secret: "whs" });
    const ok = await send(server.port, { path: `/probot/setup?code=good&state=${state}`, headers: { cookie: stateCookie, "sec-fetch-site": "cross-site" } });
    expect(ok.status).toBe(302);
    expect(readFileSync(join(cwd, ".env"), "utf8")).toContain("APP_ID=7");
    const again = await send(server.port, { path: `/probot/setup?code=second&state=${state}`, headers: { cookie: stateCookie } });
    expect(again.status).toBe(400);
  });

  it("a forged cross-site POST to /probot/import (text/plain, a form, another origin, no token) writes nothing", async () => {
    const { server, envWritten } = await start();
    const form = await send(server.port, { path: "/probot/import" });
    const csrf = /data-csrf="([^"]+)"/.exec(form.body)![1]!;
    const csrfCookie = cookieOf(form.headers, "osw_setup_csrf")!;
    const attempts: { name: string; headers: Record<string, string>; status: number }[] = [
      // What `fetch(…, {mode: "no-cors", body})` from another site sends: no preflight for text/plain.
      { name: "text/plain cross-site", headers: { "content-type": "text/plain;charset=UTF-8", origin: "https://evil.example", "sec-fetch-site": "cross-site", cookie: csrfCookie }, status: 415 },
      { name: "form cross-site", headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example", "sec-fetch-site": "cross-site", cookie: csrfCookie }, status: 415 },
      { name: "json, other origin, with the token", headers: { "content-type": "application/json", origin: "https://evil.example", "x-setup-csrf": csrf, cookie: csrfCookie }, status: 403 },
      { name: "json, same-site sibling", headers: { "content-type": "application/json", "sec-fetch-site": "same-site", "x-setup-csrf": csrf, cookie: csrfCookie }, status: 403 },
      { name: "json, same origin, no token", headers: { "content-type": "application/json", origin: `http://127.0.0.1:${server.port}`, cookie: csrfCookie }, status: 403 },
      { name: "json, same origin, token without its cookie", headers: { "content-type": "application/json", origin: `http://127.0.0.1:${server.port}`, "x-setup-csrf": csrf }, status: 403 },
      {
        name: "json, same origin, a token we never issued",
        headers: { "content-type": "application/json", origin: `http://127.0.0.1:${server.port}`, "x-setup-csrf": "A".repeat(32), cookie: `osw_setup_csrf=${"A".repeat(32)}` },
        status: 403,
      },
    ];
    for (const a of attempts) {
      const res = await send(server.port, { method: "POST", path: "/probot/import", headers: a.headers, body: IMPORT });
      expect(res.status, a.name).toBe(a.status);
      expect(JSON.parse(res.body).error, a.name).toMatch(/application\/json|cannot change the setup|setup token/);
    }
    expect(envWritten()).toBe(false);
    // The page's own request (same origin, its token and cookie) is accepted.
    const own = await send(server.port, {
      method: "POST",
      path: "/probot/import",
      headers: { "content-type": "application/json", origin: `http://127.0.0.1:${server.port}`, "sec-fetch-site": "same-origin", "x-setup-csrf": csrf, cookie: csrfCookie },
      body: IMPORT,
    });
    expect(own.status).toBe(200);
    expect(envWritten()).toBe(true);
  });

  it("a Host from elsewhere (DNS rebinding) gets no page, no smee URL and no token", async () => {
    const { server } = await start({ WEBHOOK_PROXY_URL: "https://smee.io/secret-channel" });
    for (const path of ["/probot", "/probot/import", "/probot/setup?code=x&state=y"]) {
      const res = await send(server.port, { path, headers: { host: `rebind.evil.example:${server.port}` } });
      expect(res.status, path).toBe(421);
      expect(res.body).not.toContain("secret-channel");
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
    const post = await send(server.port, { method: "POST", path: "/probot/import", headers: { host: "rebind.evil.example", "content-type": "application/json" }, body: IMPORT });
    expect(post.status).toBe(421);
    // The operator's own address still works, and the page cannot be framed by another site.
    for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`]) {
      const res = await send(server.port, { path: "/probot", headers: { host } });
      expect(res.status).toBe(200);
      expect(res.body).toContain("secret-channel");
      expect(res.headers["content-security-policy"]).toBe("frame-ancestors 'none'");
      expect(res.headers["x-frame-options"]).toBe("DENY");
    }
  });
});
