import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { testPrivateKey, WEBHOOK_SECRET } from "../helpers/github-app.js";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin/open-swe.mjs");
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

function run(args: string[], env: Record<string, string>, cwd = ROOT) {
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
  const waitFor = async (re: RegExp, ms = 20_000) => {
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

const appEnv = () => ({ APP_ID: "1", PRIVATE_KEY: testPrivateKey(), WEBHOOK_SECRET, PORT: "0", HOST: "127.0.0.1" });

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
    p.child.kill("SIGTERM");
    expect(await p.exited).toBe(0);
    expect(p.output()).toMatch(/"msg":"stopped"/);
    expect(existsSync(join(data, "redis", "redis.sock"))).toBe(false);
  });

  it("stops with the install line when redis-server is missing", async () => {
    const nodeOnly = mkdtempSync(join(tmpdir(), "no-redis-"));
    symlinkSync(process.execPath, join(nodeOnly, "node"));
    symlinkSync("/usr/bin/bwrap", join(nodeOnly, "bwrap")); // the worker checks sandbox isolation first
    const p = run(["worker"], { ...appEnv(), DATA_DIR: mkdtempSync(join(tmpdir(), "d-")), PATH: nodeOnly });
    expect(await p.exited).toBe(2);
    expect(p.output()).toMatch(/redis-server not found: install it with `sudo apt-get install -y redis-server`/);
  });

  it("a malformed setting stops start-up with one line naming the variable", async () => {
    const p = run(["all"], { ...appEnv(), PORT: "http" });
    expect(await p.exited).toBe(2);
    expect(p.output().trim()).toBe('open-swe: invalid PORT: Invalid input: expected number, received NaN (got "http")');
  });

  it("with no app credentials, starts Probot's manifest setup flow from app.yml", async () => {
    const p = run(["all"], { PORT: "0", HOST: "127.0.0.1", NO_SMEE_SETUP: "true", LOG_FORMAT: "json" });
    await p.waitFor(/Listening on http:\/\/[^:]+:\d+/);
    const port = Number(/Listening on http:\/\/[^:]+:(\d+)/.exec(p.output())![1]);
    const page = await fetch(`http://127.0.0.1:${port}/probot`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Open SWE");
    expect(html).toMatch(/pull_request_review_comment/);
    p.child.kill("SIGTERM");
    await p.exited;
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
  });
});
