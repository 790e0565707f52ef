// Child process for bench:intake: serves either the whole app (web role on real Redis) or a bare Probot
// app whose handler does nothing, and prints its port.
import { createServer } from "node:http";
import { createNodeMiddleware, Probot } from "probot";
import { readConfig } from "../src/config/env.js";
import { createLogger } from "../src/logger.js";
import { startProcess } from "../src/main.js";
import { Queue } from "bullmq";
import { connectRedis } from "../src/store/redis.js";
import { QueueSet } from "../src/queue/queues.js";
import { JobSigner } from "../src/queue/job-provenance.js";
import { IntakePump } from "../src/queue/intake-pump.js";

const [mode, redisUrl, secret, privateKey] = process.argv.slice(-4) as [string, string, string, string];
const log = createLogger("silent");

if (mode === "full" || mode === "full-stream") {
  const intake = mode === "full-stream" ? "stream" : "queue";
  const config = readConfig({ APP_ID: "1", PRIVATE_KEY: privateKey, WEBHOOK_SECRET: secret, QUEUE_REDIS_URL: redisUrl, QUEUE_PREFIX: "bench", LOG_LEVEL: "silent", WEBHOOK_INTAKE: intake });
  const proc = await startProcess({ role: "web", config, log, port: 0, host: "127.0.0.1" });
  process.stdout.write(`port ${proc.port}\n`);
} else if (mode === "pump") {
  // What a worker runs besides its queues: the intake pump moving "full-stream"'s entries into BullMQ.
  const queues = new QueueSet({ connection: connectRedis(redisUrl), prefix: "bench", attempts: 1, signer: JobSigner.fromEnv({ WEBHOOK_SECRET: secret }) });
  new IntakePump({ connection: connectRedis(redisUrl), queues, prefix: "bench", log }).start();
  process.stdout.write("port 0\n");
} else {
  const probot = new Probot({ appId: 1, privateKey, secret, log });
  // "bare-add": the floor for any app that persists the event: a bare handler doing one queue.add.
  // "bare-add-piped": the same on a connection that sends the commands of one event-loop turn in one write.
  const connection = mode === "bare-add-piped" ? connectRedis(redisUrl, { autoPipelining: true }) : connectRedis(redisUrl);
  const queue = mode.startsWith("bare-add") ? new Queue("bench-add", { connection, prefix: "bench" }) : null;
  const middleware = await createNodeMiddleware(
    (app) =>
      app.on("issue_comment.created", async (ctx) => {
        if (queue) await queue.add("comment", { id: ctx.payload.comment.id }, { jobId: `d__${ctx.id}` });
        // "bare-xadd": the floor of a stream append (one XADD of the event) instead of a BullMQ add.
        else if (mode === "bare-xadd") await connection.xadd("bench:intake", "*", "d", JSON.stringify({ id: ctx.id, c: ctx.payload.comment.id }));
      }),
    { probot },
  );
  const server = createServer((req, res) => void middleware(req, res, () => res.writeHead(404).end()));
  server.listen(0, "127.0.0.1", () => {
    const a = server.address();
    process.stdout.write(`port ${typeof a === "object" && a ? a.port : 0}\n`);
  });
}
