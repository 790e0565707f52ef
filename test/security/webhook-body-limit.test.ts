import { connect } from "node:net";
import { sign } from "@octokit/webhooks-methods";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { routedPath } from "../../src/http/webhook-body-limit.js";
import { WEBHOOK_SECRET } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const LIMIT = 4096;

/** A signed mention: if any of these reached the webhook handler it would queue an agent job. */
const mention = (padding: number) => ({
  action: "created",
  installation: { id: 77 },
  repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
  sender: { login: "alice", id: 1, type: "User" },
  issue: { number: 5, id: 5005, pull_request: { url: "x" } },
  comment: { id: 900, body: `@open-swe fix it ${"x".repeat(padding)}`, user: { login: "alice", id: 1, type: "User" } },
});

/** Every spelling Probot routes to /api/github/webhooks. */
const SPELLINGS = [
  "/api/github/webhooks",
  "/api/github/webhooks/",
  "/api/github/webhooks?x=1",
  "/api/github/webhooks#fragment",
  "http://127.0.0.1/api/github/webhooks",
  "http://evil.example/api/github/webhooks#x",
  "/api/./github/webhooks",
  "/api/x/../github/webhooks",
  "/./api/github/webhooks",
  "/api/github/x/%2e%2e/webhooks",
];

interface RawResponse {
  status: number;
  body: string;
}

/** A request written byte by byte on a real socket, so the URL reaches the server exactly as spelled. */
function rawPost(port: number, target: string, body: string, headers: Record<string, string>, chunked: boolean): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => {
      received += d;
    });
    socket.on("error", (err) => (received ? undefined : reject(err)));
    socket.on("close", () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (!m) return reject(new Error(`no HTTP response: ${JSON.stringify(received.slice(0, 200))}`));
      resolve({ status: Number(m[1]), body: received.slice(received.indexOf("\r\n\r\n") + 4) });
    });
    const head = Object.entries({ host: "127.0.0.1", connection: "close", ...headers, ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(Buffer.byteLength(body)) }) })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("");
    socket.write(`POST ${target} HTTP/1.1\r\n${head}\r\n`);
    // Never half-close: the server answers `connection: close` requests and then closes the socket itself.
    if (!chunked) return void socket.write(body);
    // Stream the body in 16 KB chunks, stopping as soon as the server has answered.
    let offset = 0;
    const step = () => {
      if (received || socket.destroyed) return;
      if (offset >= body.length) return void socket.write("0\r\n\r\n");
      const piece = body.slice(offset, offset + 16_384);
      offset += piece.length;
      socket.write(`${Buffer.byteLength(piece).toString(16)}\r\n${piece}\r\n`, () => setImmediate(step));
    };
    step();
  });
}

describe("security: the webhook body limit holds for every spelling Probot routes", () => {
  let proc: RunningProcess;
  const queued = async () => (await proc.queues.queues.agent.count()) + (await proc.queues.queues.command.count());
  beforeAll(async () => {
    // WEBHOOK_INTAKE=queue: the limit is under test, not the intake; a refused body must leave no job, counted at once.
    proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix(), MAX_WEBHOOK_BYTES: String(LIMIT), WEBHOOK_INTAKE: "queue" });
  });
  afterAll(async () => proc?.stop());

  it("routedPath normalises the way the webhook router does", () => {
    for (const s of SPELLINGS) expect([s, routedPath(s)]).toEqual([s, "/api/github/webhooks"]);
    expect(routedPath("/api/github/webhooks2")).toBe("/api/github/webhooks2");
  });

  it("routedPath's no-parse path for plain paths gives what URL parsing gives", () => {
    const urls = ["/", "/api/github/webhooks", "/A_b-9/x/", "/a//b", "//evil.example/api/github/webhooks", "///", "/a/../b", "/a/%2e/b", "/a\\b", "/a b", "/ä", " /a", "/a\t/b"];
    for (const u of urls) expect([u, routedPath(u)]).toEqual([u, new URL(u.replace(/\/+$/, "") || "/", "http://localhost").pathname]);
  });

  for (const chunked of [false, true]) {
    for (const target of SPELLINGS) {
      it(`${chunked ? "chunked" : "content-length"} POST ${target} with a signed 512 KB body is a 413 and never reaches the handler`, async () => {
        const body = JSON.stringify(mention(512 * 1024));
        const res = await rawPost(
          proc.port!,
          target,
          body,
          { "content-type": "application/json", "x-github-event": "issue_comment", "x-github-delivery": `big-${chunked}-${target}`, "x-hub-signature-256": await sign(WEBHOOK_SECRET, body) },
          chunked,
        );
        expect(res.status).toBe(413);
        expect(JSON.parse(res.body)).toEqual({ error: `body larger than ${LIMIT} bytes` });
        expect(await queued()).toBe(0);
      });
    }
  }

  it("the same spellings with a small signed body are delivered (the limit is not a blanket refusal)", async () => {
    const body = JSON.stringify(mention(10));
    const res = await rawPost(
      proc.port!,
      "http://127.0.0.1/api/./github/x/../webhooks#f",
      body,
      { "content-type": "application/json", "x-github-event": "issue_comment", "x-github-delivery": "small-1", "x-hub-signature-256": await sign(WEBHOOK_SECRET, body) },
      true,
    );
    expect(res.status).toBe(200);
    expect(await proc.queues.queues.agent.count()).toBe(1);
  });
});
