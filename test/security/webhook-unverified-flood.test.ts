import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueCommentPayload, sendWebhook, testPrivateKey, WEBHOOK_SECRET } from "../helpers/github-app.js";
import { ROOT } from "../helpers/paths.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";

// Finding (#42, 7): 40 held-open 24 MB bodies with a made-up signature added 913 MB to the web process:
// the GitHub route held unsigned bodies whole, in any number. Now each address may hold 64 MB of
// unverified bodies at once (and the route 256 MB): past it a body is refused on its headers (429,
// Retry-After), or as soon as a chunked one passes it; refusals are counted on /metrics.

const MB = 1024 * 1024;
const DECLARED = 24 * MB;
const SENT = 8 * MB;
const ATTACKERS = 24;
const CHUNK = Buffer.alloc(64 * 1024, "x");

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

interface Held {
  socket: Socket;
  /** The server's answer (status line and headers), or a null status when the connection ended without one (a reset while we still wrote). */
  answered: Promise<{ status: number | null; head: string }>;
  /** Resolves once `bytes` of the body are written, or the connection ended first: how many were. */
  sent: Promise<number>;
}

/**
 * A POST over a raw socket (nock patches node:http and would buffer the body here) announcing 24 MB (or
 * chunked) with a made-up signature, writing `bytes` of the body as fast as the server takes them, then
 * holding the connection open.
 */
function hold(port: number, bytes: number, chunked: boolean): Held {
  const socket = connect(port, "127.0.0.1");
  let answer = "";
  let ended = false;
  let written = 0;
  let resolveAnswer!: (a: { status: number | null; head: string }) => void;
  let resolveSent!: (n: number) => void;
  const answered = new Promise<{ status: number | null; head: string }>((r) => (resolveAnswer = r));
  const sent = new Promise<number>((r) => (resolveSent = r));
  const end = () => {
    ended = true;
    resolveSent(written);
  };
  socket.on("data", (d: Buffer) => {
    answer += d.toString("latin1");
    const m = /^HTTP\/1\.1 (\d{3})[^]*?\r\n\r\n/.exec(answer);
    if (m) {
      resolveAnswer({ status: Number(m[1]), head: m[0] });
      end();
    }
  });
  socket.on("error", () => undefined);
  socket.on("close", () => {
    resolveAnswer({ status: null, head: "" });
    end();
  });
  const frame = chunked ? Buffer.concat([Buffer.from(`${CHUNK.length.toString(16)}\r\n`), CHUNK, Buffer.from("\r\n")]) : CHUNK;
  const pump = () => {
    while (!ended && written < bytes) {
      written += CHUNK.length;
      if (!socket.write(frame)) return void socket.once("drain", pump);
    }
    if (written >= bytes) resolveSent(written);
  };
  socket.once("connect", () => {
    const head = {
      host: `127.0.0.1:${port}`,
      "content-type": "application/json",
      "x-github-event": "issue_comment",
      "x-github-delivery": `flood-${Math.random()}`,
      "x-hub-signature-256": `sha256=${"0".repeat(64)}`,
      ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(DECLARED) }),
    };
    socket.write(
      `POST /api/github/webhooks HTTP/1.1\r\n${Object.entries(head)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("")}\r\n`,
    );
    pump();
  });
  return { socket, answered, sent };
}

describe("security: unverified GitHub webhook bodies are capped per address and in total", () => {
  let child: ChildProcess;
  let port: number;
  let out = "";
  let sampler: ReturnType<typeof setInterval> | undefined;
  const refusedCount = async () => {
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return Number(/open_swe_webhook_bodies_refused_total\{reason="address_busy"\} (\d+)/.exec(metrics)?.[1] ?? 0);
  };
  /** Asks again after each answer (each one a round trip to the process) until `check` holds. */
  const until = async (check: () => Promise<boolean>) => {
    while (!(await check())) await new Promise((r) => setImmediate(r));
  };

  beforeAll(async () => {
    child = spawn(process.execPath, [join(ROOT, "bin/open-swe.mjs"), "web"], {
      cwd: mkdtempSync(join(tmpdir(), "gh-flood-cwd-")),
      env: {
        PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: tmpdir(),
        APP_ID: "1",
        PRIVATE_KEY: testPrivateKey(),
        WEBHOOK_SECRET,
        PORT: "0",
        HOST: "127.0.0.1",
        QUEUE_REDIS_URL: redisUrl(),
        QUEUE_PREFIX: uniquePrefix(),
        DATA_DIR: mkdtempSync(join(tmpdir(), "gh-flood-data-")),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (/web server listening/.test(out)) return resolve();
        if (child.exitCode !== null) return reject(new Error(`web did not start: ${out}`));
      };
      child.stdout!.on("data", check);
      child.once("exit", check);
    });
    port = Number(/"port":(\d+)[^\n]*web server listening/.exec(out)![1]);
  }, 60_000);
  afterAll(() => {
    clearInterval(sampler);
    child?.kill("SIGKILL");
  });

  it(`${ATTACKERS} slow 24 MB bodies from one address: past the cap refused with 429 and Retry-After, memory flat, a signed delivery still queued`, async () => {
    // Warm the route (lazy loading of the webhook path) so the figure is the flood's.
    const warm = await sendWebhook(port, { event: "issue_comment", payload: issueCommentPayload({ installationId: 1, number: 1, issueId: 11, commentId: 101, body: "hello" }) });
    expect(warm.status).toBeLessThan(300);
    const baseline = rssOf(child.pid!);
    let peak = baseline;
    sampler = setInterval(() => (peak = Math.max(peak, rssOf(child.pid!))), 10);

    const attackers = Array.from({ length: ATTACKERS }, () => hold(port, SENT, false));
    await Promise.all(attackers.map((a) => a.sent));
    // 64 MB per address: two 24 MB bodies are held, every other one refused on its headers (the
    // refusal may reach the client as a reset when it was still writing: the counter says how many).
    await until(async () => (await refusedCount()) === ATTACKERS - 2);
    for (const a of attackers) {
      const r = await Promise.race([a.answered, a.sent.then(() => null)]);
      if (r?.status != null) expect(r.status).toBe(429);
    }
    // Announced, not sent: the answer comes on the headers alone, with when to try again and why.
    const probe = hold(port, 0, false);
    const answer = await probe.answered;
    expect(answer.status).toBe(429);
    expect(answer.head).toMatch(/\r\nretry-after: 1\r\n/i);
    probe.socket.destroy();

    // A chunked body from the same address is cut off once it passes what the address may still hold.
    const chunked = hold(port, DECLARED, true);
    expect([429, null]).toContain((await chunked.answered).status);
    expect(await chunked.sent).toBeLessThan(DECLARED);
    await until(async () => (await refusedCount()) === ATTACKERS);

    // A normal signed delivery gets through at the same time (it fits what is left).
    const signed = await sendWebhook(port, { event: "issue_comment", payload: issueCommentPayload({ installationId: 1, number: 2, issueId: 12, commentId: 102, body: "@open-swe fix it" }) });
    expect(signed.status).toBeLessThan(300);

    clearInterval(sampler);
    peak = Math.max(peak, rssOf(child.pid!));
    // Without the cap: 24 × 8 MB held. With it: the two held bodies' 16 MB and the cut chunked one's.
    expect(peak - baseline).toBeLessThan(80 * MB);

    // A flood of refusals is one log line (the counter has them all).
    expect(out.split("\n").filter((l) => l.includes("webhook body refused"))).toHaveLength(1);

    // Once the held bodies go away their share is given back: a whole 24 MB body is read again (and
    // refused for what it is, not for being one too many).
    for (const a of attackers) a.socket.destroy();
    chunked.socket.destroy();
    let status: number | null = 0;
    while (status !== 400) {
      const again = hold(port, DECLARED, false);
      status = (await again.answered).status;
      again.socket.destroy();
      expect([400, 429, null]).toContain(status);
    }
  }, 120_000);
});
