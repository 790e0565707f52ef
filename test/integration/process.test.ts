import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { testPrivateKey, WEBHOOK_SECRET } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin/open-swe.mjs");
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) {
    // npm runs node as its child: a detached npm leads a process group, killed whole (a failed case left node up).
    if (c.spawnargs[0] === "npm" && c.pid !== undefined) {
      try {
        process.kill(-c.pid, "SIGKILL");
      } catch {}
    } else if (c.exitCode === null) c.kill("SIGKILL");
  }
});

// A fresh working directory per process: the checkout's own .env and .data are the operator's, never the tests'.
function run(args: string[], env: Record<string, string>, cwd = mkdtempSync(join(tmpdir(), "open-swe-cwd-"))) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: tmpdir(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  // A whole `all` start (the app's modules, a redis-server, the sandbox check) passed 20 s at load 25.
  const waitFor = async (re: RegExp, ms = 60_000) => {
    const start = Date.now();
    while (!re.test(out + err)) {
      if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}) before ${re}: ${out}${err}`);
      if (Date.now() - start > ms) throw new Error(`timed out waiting for ${re}: ${out}${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return out + err;
  };
  return { child, exited, waitFor, output: () => out + err };
}

// GITHUB_API_URL on a closed loopback port: the worker's start-up installations sync fails at once, never leaving the machine.
const appEnv = () => ({ APP_ID: "1", PRIVATE_KEY: testPrivateKey(), WEBHOOK_SECRET, PORT: "0", HOST: "127.0.0.1", GITHUB_API_URL: "http://127.0.0.1:9/api/v3" });

describe("open-swe processes", () => {
  it("`all` with no QUEUE_REDIS_URL starts a private redis-server, serves /health, and exits 0 on SIGTERM", async () => {
    const data = mkdtempSync(join(tmpdir(), "open-swe-data-"));
    const p = run(["all"], { ...appEnv(), DATA_DIR: data });
    const text = await p.waitFor(/"port":\d+.*web server listening|web server listening.*"port":\d+/);
    const port = Number(/"port":(\d+)/.exec(text)![1]);
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok", role: "all", redis: "up" });
    expect(existsSync(join(data, "redis", "appendonlydir"))).toBe(true);
    await p.waitFor(/worker role started[\s\S]*ANTHROPIC_API_KEY is not set/);
    const logged = p
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.filter((l) => /role started$/.test(String(l.msg))).map((l) => [l.role, l.redis, l.sandbox])).toEqual([
      ["web", "embedded", undefined],
      ["worker", "embedded", "local"],
    ]);
    // No APP_URL and no smee channel: GitHub cannot reach the webhook, said at every start.
    expect(logged.filter((l) => l.level === 40 && l.key).map((l) => l.key)).toEqual(["APP_URL", "ANTHROPIC_API_KEY"]);
    expect(logged.find((l) => l.key === "APP_URL")?.msg).toMatch(/^GitHub cannot reach this app's webhook: neither APP_URL nor WEBHOOK_PROXY_URL is set/);
    expect(logged.filter((l) => /^dashboard at /.test(String(l.msg))).map((l) => l.msg)).toEqual([
      `dashboard at http://localhost:${port}/app; sign-in off: set GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET (the setup flow saves them)`,
    ]);
    expect(logged.every((l) => Object.keys(l).filter((k) => k === "name").length === 1)).toBe(true);
    p.child.kill("SIGTERM");
    expect(await p.exited).toBe(0);
    expect(p.output()).toMatch(/"msg":"stopped"/);
    expect(existsSync(join(data, "redis", "redis.sock"))).toBe(false);
  }, 90_000);

  it("a SIGTERM while `all` is still starting stops it once started: exit 0, nothing left running", async () => {
    const data = mkdtempSync(join(tmpdir(), "open-swe-data-"));
    const p = run(["all"], { ...appEnv(), DATA_DIR: data });
    // The sandbox check's line comes early in the start, well before the servers and workers are up.
    await p.waitFor(/"isolation":/);
    p.child.kill("SIGTERM");
    expect(await p.exited).toBe(0);
    expect(p.output()).toMatch(/"msg":"stopped"/);
    expect(existsSync(join(data, "redis", "redis.sock"))).toBe(false);
  }, 90_000);

  it("stops with the install line when redis-server is missing", async () => {
    const nodeOnly = mkdtempSync(join(tmpdir(), "no-redis-"));
    symlinkSync(process.execPath, join(nodeOnly, "node"));
    symlinkSync("/usr/bin/bwrap", join(nodeOnly, "bwrap")); // the worker checks sandbox isolation first
    const p = run(["worker"], { ...appEnv(), DATA_DIR: mkdtempSync(join(tmpdir(), "d-")), PATH: nodeOnly });
    expect(await p.exited).toBe(2);
    expect(p.output()).toMatch(/redis-server not found: install it with `sudo apt-get install -y redis-server`/);
  });

  it("a worker whose sandbox provider's key is missing refuses to start, in one line", async () => {
    const p = run(["worker"], { ...appEnv(), SANDBOX_TYPE: "e2b", QUEUE_REDIS_URL: "unix:/nonexistent.sock" });
    expect(await p.exited).toBe(2);
    expect(p.output().trim()).toBe("open-swe: missing E2B_API_KEY: SANDBOX_TYPE=e2b needs it for every run (or set SANDBOX_TYPE=local)");
  });

  it("a web process on a port already in use says so in one line and exits non-zero (no stack)", async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", () => r()));
    const port = (taken.address() as AddressInfo).port;
    try {
      const p = run(["web"], { ...appEnv(), PORT: String(port), QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix(), LOG_LEVEL: "warn" });
      expect(await p.exited).toBe(2);
      expect(p.output().trim()).toBe(`open-swe: PORT=${port} on 127.0.0.1 is already in use (another process listens there): stop it or set another PORT`);
    } finally {
      taken.close();
    }
  });

  it("a malformed setting stops start-up with one line naming the variable", async () => {
    const p = run(["all"], { ...appEnv(), PORT: "http" });
    expect(await p.exited).toBe(2);
    expect(p.output().trim()).toBe('open-swe: invalid PORT: Invalid input: expected number, received NaN (got "http")');
  });

  it("with no app credentials, `all` serves the manifest setup flow from app.yml and /health", async () => {
    const p = run(["all"], { PORT: "0", HOST: "127.0.0.1", NO_SMEE_SETUP: "true" });
    await p.waitFor(/setup mode: no GitHub App credentials yet; open http:\/\/localhost:\d+/);
    const port = Number(/"port":(\d+)/.exec(p.output())![1]);
    const page = await fetch(`http://127.0.0.1:${port}/probot`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Open SWE");
    expect(html).toMatch(/pull_request_review_comment/);
    expect(html).toContain(`http://127.0.0.1:${port}/api/github/webhooks`);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    p.child.kill("SIGTERM");
    expect(await p.exited).toBe(0);
  });

  it.each([
    ["web", { NODE_ENV: "production" }],
    ["worker", {}],
  ])("`%s` without credentials %j stops with one line saying to run the setup flow elsewhere", async (role, env) => {
    const p = run([role], { PORT: "0", HOST: "127.0.0.1", ...env });
    expect(await p.exited).toBe(2);
    expect(p.output().trim()).toBe(
      "open-swe: no GitHub App credentials (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET): run `npm start` on a workstation to register the app with the setup flow (it writes them and APP_SLUG to .env), then pass those variables to this process",
    );
  });

  it("the settings CLI reads and writes through the same Redis", async () => {
    const data = mkdtempSync(join(tmpdir(), "open-swe-data-"));
    const set = run(["settings", "repos", "enable", "Octo/Hello"], { DATA_DIR: data });
    expect(await set.exited).toBe(0);
    const list = run(["settings", "repos", "list"], { DATA_DIR: data });
    expect(await list.exited).toBe(0);
    expect(JSON.parse(list.output())).toEqual(["octo/hello"]);
    const bad = run(["settings", "autofix", "set", "octo/hello#1", "maybe"], { DATA_DIR: data });
    expect(await bad.exited).toBe(2);
    expect(bad.output()).toMatch(/autofix takes on or off, not "maybe"/);
    const path = run(["settings", "repos", "enable", "../etc"], { DATA_DIR: data });
    expect(await path.exited).toBe(2);
    expect(path.output().trim()).toBe('open-swe: "../etc" is not a repository name: expected owner/name (the owner: letters, digits and -, the name: letters, digits and _ . -)');
    const model = run(["settings", "team-model", "set", "agent", "claude-sonet-4-5"], { DATA_DIR: data });
    expect(await model.exited).toBe(2);
    expect(model.output()).toMatch(/^open-swe: unknown model "claude-sonet-4-5": one of claude-[^\n]*, or openai:<name> for an OpenAI-compatible endpoint$/m);
  }, 90_000);
});

describe("npm start", () => {
  it("SIGTERM to the npm process reaches node: the app stops listening and exits", async () => {
    const checkout = mkdtempSync(join(tmpdir(), "osw-npm-"));
    for (const entry of ["package.json", "bin", "node_modules", "app.yml"]) symlinkSync(join(ROOT, entry), join(checkout, entry));
    const npm = spawn("npm", ["start", "--silent"], {
      cwd: checkout,
      detached: true,
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: tmpdir(), PORT: "0", HOST: "127.0.0.1", NO_SMEE_SETUP: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(npm);
    let out = "";
    npm.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    npm.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    for (let i = 0; !/"port":(\d+)/.test(out); i++) {
      if (i > 400 || npm.exitCode !== null) throw new Error(`npm start did not come up: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const port = Number(/"port":(\d+)/.exec(out)![1]);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    const exited = new Promise((r) => npm.once("exit", r));
    npm.kill("SIGTERM");
    await exited;
    let listening = true;
    for (let i = 0; listening && i < 100; i++) {
      listening = await fetch(`http://127.0.0.1:${port}/health`).then(
        () => true,
        () => false,
      );
      if (listening) await new Promise((r) => setTimeout(r, 50));
    }
    expect(listening).toBe(false);
  });
});
