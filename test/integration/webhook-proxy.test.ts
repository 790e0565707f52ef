import { createServer, type ServerResponse } from "node:http";
import { sign } from "@octokit/webhooks-methods";
import { afterAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { WEBHOOK_SECRET } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

const body = (text: string, id: number) => ({
  action: "created",
  installation: { id: 3 },
  repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
  sender: { login: "alice", id: 1, type: "User" },
  issue: { number: 2, id: 2002 },
  comment: { id, body: text, user: { login: "alice", id: 1, type: "User" } },
});

describe("WEBHOOK_PROXY_URL relays a smee-style channel to the real endpoint", () => {
  const clients: ServerResponse[] = [];
  const channel = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("event: ready\ndata: {}\n\n");
    clients.push(res);
  });
  let proc: RunningProcess | undefined;
  afterAll(async () => {
    await proc?.stop();
    for (const c of clients) c.end();
    channel.close();
  });

  it("delivers signed events and still refuses unsigned ones", async () => {
    await new Promise<void>((r) => channel.listen(0, "127.0.0.1", () => r()));
    const address = channel.address();
    const port = typeof address === "object" && address ? address.port : 0;
    // WEBHOOK_INTAKE=queue: the relay is under test, not the intake (the job is in BullMQ at the 2xx).
    proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix(), WEBHOOK_PROXY_URL: `http://127.0.0.1:${port}/channel`, WEBHOOK_INTAKE: "queue" });
    for (let i = 0; clients.length === 0; i++) {
      if (i > 200) throw new Error("the proxy never connected");
      await new Promise((r) => setTimeout(r, 10));
    }
    const good = body("@open-swe fix it", 1);
    const bad = body("@open-swe delete everything", 2);
    const event = (b: unknown, delivery: string, signature: string) =>
      `data: ${JSON.stringify({ "x-github-event": "issue_comment", "x-github-delivery": delivery, "x-hub-signature-256": signature, host: "smee.io", body: b, query: {} })}\n\n`;
    clients[0]!.write(event(good, "relay-good", await sign(WEBHOOK_SECRET, JSON.stringify(good))));
    clients[0]!.write(event(bad, "relay-bad", await sign("not-the-secret", JSON.stringify(bad))));
    const agent = proc.queues.queues.agent;
    for (let i = 0; !(await agent.getJob(deliveryJobId("relay-good"))); i++) {
      if (i > 300) throw new Error("the relayed delivery was never enqueued");
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(await agent.getJob(deliveryJobId("relay-bad"))).toBeUndefined();
    expect(await agent.count()).toBe(1);
  });
});
