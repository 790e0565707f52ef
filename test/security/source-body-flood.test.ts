import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, mkdtempSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPrivateKey, WEBHOOK_SECRET } from "../helpers/github-app.js";
import { ROOT } from "../helpers/paths.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";

// Finding: 12 unsigned 24 MB requests to the source routes were read whole before any check (+525 MB RSS
// in the web process). Now a request without its source's signature header is refused on its headers,
// and a signed-looking one is cut off at SOURCE_MAX_BODY_BYTES (1 MB) while it streams.

const MB = 1024 * 1024;
const SIZE = 24 * MB;
const CHUNK = Buffer.alloc(64 * 1024, "x");

/** The web process's resident memory, as `process.memoryUsage().rss` reports it inside (VmRSS). */
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

interface Outcome {
  status: number | null;
  written: number;
  ms: number;
}

/**
 * Streams up to `SIZE` bytes over a raw socket (nock patches node:http and would buffer the body in this
 * process) as fast as the server takes them; stops at its answer or when it closes the connection.
 */
function flood(port: number, path: string, headers: Record<string, string>, chunked: boolean): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    let written = 0;
    let status: number | null = null;
    let done = false;
    let answer = "";
    const socket = connect(port, "127.0.0.1");
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ status, written, ms: Date.now() - started });
    };
    socket.on("data", (d: Buffer) => {
      answer += d.toString("latin1");
      const m = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (m) {
        status = Number(m[1]);
        finish();
      }
    });
    socket.on("error", finish);
    socket.on("close", finish);
    const head = { host: `127.0.0.1:${port}`, "content-type": "application/json", ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(SIZE) }), ...headers };
    const frame = chunked ? Buffer.concat([Buffer.from(`${CHUNK.length.toString(16)}\r\n`), CHUNK, Buffer.from("\r\n")]) : CHUNK;
    const pump = () => {
      while (!done && written < SIZE) {
        written += CHUNK.length;
        if (!socket.write(frame)) return void socket.once("drain", pump);
      }
      if (!done && chunked) socket.write("0\r\n\r\n");
    };
    socket.once("connect", () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\n${Object.entries(head)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join("")}\r\n`,
      );
      pump();
    });
  });
}

/**
 * Announces a 24 MB body, sends none of it and waits (10 s) for the answer: a route that answers decided
 * on the headers alone. Unlike the flood, nothing is still being written when the server closes, so the
 * status always arrives.
 */
function probe(port: number, path: string, headers: Record<string, string>): Promise<number | null> {
  return new Promise((resolve) => {
    let answer = "";
    const socket = connect(port, "127.0.0.1");
    const timer = setTimeout(() => socket.destroy(), 10_000);
    socket.on("data", (d: Buffer) => {
      answer += d.toString("latin1");
      if (/^HTTP\/1\.1 \d{3}/.test(answer)) socket.destroy();
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(/^HTTP\/1\.1 (\d{3})/.exec(answer) ? Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)![1]) : null);
    });
    const head = { host: `127.0.0.1:${port}`, "content-type": "application/json", "content-length": String(SIZE), ...headers };
    socket.once("connect", () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\n${Object.entries(head)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join("")}\r\n`,
      );
    });
  });
}

describe("source routes under a flood of large bodies", () => {
  let child: ChildProcess;
  let port: number;
  const prefix = uniquePrefix();

  beforeAll(async () => {
    child = spawn(process.execPath, [join(ROOT, "bin/open-swe.mjs"), "web"], {
      cwd: mkdtempSync(join(tmpdir(), "flood-cwd-")),
      env: {
        PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: tmpdir(),
        APP_ID: "1",
        PRIVATE_KEY: testPrivateKey(),
        WEBHOOK_SECRET,
        PORT: "0",
        HOST: "127.0.0.1",
        QUEUE_REDIS_URL: redisUrl(),
        QUEUE_PREFIX: prefix,
        DATA_DIR: mkdtempSync(join(tmpdir(), "flood-data-")),
        SLACK_SIGNING_SECRET: "slack-signing-secret",
        SLACK_BOT_TOKEN: "xoxb-test",
        LINEAR_WEBHOOK_SECRET: "linear-secret",
        LINEAR_API_KEY: "lin_api_test",
        JIRA_BASE_URL: "https://acme.atlassian.net",
        JIRA_EMAIL: "bot@acme.test",
        JIRA_API_TOKEN: "jira-token",
        JIRA_WEBHOOK_SECRET: "jira-webhook-secret-0123456789",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    const started = Date.now();
    while (!/web server listening/.test(out)) {
      if (child.exitCode !== null || Date.now() - started > 30_000) throw new Error(`web did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    port = Number(/"port":(\d+)[^\n]*web server listening/.exec(out)![1]);
  }, 40_000);
  afterAll(() => {
    child?.kill("SIGKILL");
  });

  /** Runs the 12 requests while sampling the web process's RSS; returns the outcomes and the growth. */
  async function attack(paths: string[], headersFor: (path: string) => Record<string, string>): Promise<{ outcomes: Outcome[]; growth: number; ms: number }> {
    // Warm the path once, so the figure is the flood's, not the first request's lazy loading.
    await flood(port, paths[0]!, headersFor(paths[0]!), false);
    const baseline = rssOf(child.pid!);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(child.pid!))), 10);
    const started = Date.now();
    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => flood(port, paths[i % paths.length]!, headersFor(paths[i % paths.length]!), i % 2 === 1)));
    const ms = Date.now() - started;
    await new Promise((r) => setTimeout(r, 200));
    clearInterval(sampler);
    peak = Math.max(peak, rssOf(child.pid!));
    return { outcomes, growth: peak - baseline, ms };
  }

  it("12 concurrent 24 MB requests without a signature header are refused on their headers: the body is never read", async () => {
    // GitHub's own path too: its 25 MB limit is for signed deliveries, an unsigned one is refused first.
    const { outcomes, growth, ms } = await attack(["/webhooks/slack", "/webhooks/linear", "/webhooks/jira", "/api/github/webhooks"], () => ({}));
    for (const [i, o] of outcomes.entries()) {
      // Refused (401; GitHub's path 400 naming the missing headers), or reset because the socket closed
      // while the client still pushed its body: never read whole.
      if (o.status !== null) expect(o.status).toBe(i % 4 === 3 ? 400 : 401);
      expect(o.written).toBeLessThan(SIZE);
    }
    // Each route answers on the headers alone (under the flood's load every answer above may be a reset).
    for (const [i, path] of ["/webhooks/slack", "/webhooks/linear", "/webhooks/jira", "/api/github/webhooks"].entries()) {
      expect(await probe(port, path, {})).toBe(i === 3 ? 400 : 401);
    }
    expect(ms).toBeLessThan(10_000);
    expect(growth).toBeLessThan(100 * MB);
    // Nothing claimed or queued (the queue's own meta key exists from start-up).
    expect((await testRedis().keys(`${prefix}:*`)).filter((k) => !k.endsWith(":meta"))).toEqual([]);
  }, 60_000);

  it("12 concurrent 24 MB requests with (bogus) signature headers are cut off at the 1 MB limit while they stream", async () => {
    const signed = (path: string): Record<string, string> =>
      path.endsWith("slack")
        ? { "x-slack-signature": "v0=bogus", "x-slack-request-timestamp": String(Math.floor(Date.now() / 1000)) }
        : path.endsWith("linear")
          ? { "linear-signature": "bogus" }
          : { "x-hub-signature": "sha256=bogus" };
    const { outcomes, growth, ms } = await attack(["/webhooks/slack", "/webhooks/linear", "/webhooks/jira"], signed);
    for (const o of outcomes) {
      if (o.status !== null) expect(o.status).toBe(413);
      expect(o.written).toBeLessThan(SIZE);
    }
    // Each route answers on the declared length alone (under the flood's load every answer above may be a reset).
    for (const path of ["/webhooks/slack", "/webhooks/linear", "/webhooks/jira"]) expect(await probe(port, path, signed(path))).toBe(413);
    expect(ms).toBeLessThan(10_000);
    expect(growth).toBeLessThan(100 * MB);
  }, 60_000);
});
