import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.js";
import { testPrivateKey } from "../helpers/github-app.js";

const connectionsReceived = async (r: Redis) => Number(/total_connections_received:(\d+)/.exec(await r.info("stats"))![1]);

describe("the test suite never touches the operator's data", () => {
  const checkout = mkdtempSync(join(tmpdir(), "osw-checkout-"));
  const operatorRedisDir = join(checkout, ".data", "redis");
  let redisServer: ReturnType<typeof spawn> | undefined;
  let operator: Redis | undefined;
  afterAll(async () => {
    await operator?.quit();
    redisServer?.kill("SIGTERM");
  });

  it("runs green in a checkout whose .env and .data/redis belong to a live installation, opening no connection to its Redis", async () => {
    // The operator's installation: the embedded Redis where `npm start` puts it, and the .env the setup flow wrote.
    mkdirSync(operatorRedisDir, { recursive: true });
    const socket = join(operatorRedisDir, "redis.sock");
    redisServer = spawn("redis-server", ["--port", "0", "--unixsocket", socket, "--unixsocketperm", "700", "--save", "", "--appendonly", "no", "--dir", operatorRedisDir], { stdio: "ignore" });
    for (let i = 0; !existsSync(socket); i++) {
      if (i > 400) throw new Error("operator redis-server did not start");
      await new Promise((r) => setTimeout(r, 25));
    }
    operator = new Redis({ path: socket });
    await operator.set("open-swe:operator-marker", "mine");
    writeFileSync(
      join(checkout, ".env"),
      [`APP_ID=777`, `PRIVATE_KEY="${testPrivateKey().replace(/\n/g, "\\n")}"`, `WEBHOOK_SECRET=operator`, `QUEUE_REDIS_URL=unix:${socket}`, `APP_SLUG=operator-bot`, ""].join("\n"),
      { mode: 0o600 },
    );
    for (const entry of ["src", "jobs", "bench", "bin", "prompts", "test", "app.yml", "package.json", ".node-version", "tsconfig.json", "vitest.config.ts"]) {
      cpSync(join(ROOT, entry), join(checkout, entry), { recursive: true });
    }
    symlinkSync(join(ROOT, "node_modules"), join(checkout, "node_modules"));
    // The build `npm test`'s pretest made, copied last (so newer than the sources, as it is here) when it is current: the
    // processes the inner suite spawns then run compiled JavaScript, as they do in this suite, not tsx.
    const { chooseEntry } = (await import(pathToFileURL(join(ROOT, "bin/choose-entry.mjs")).href)) as { chooseEntry(root: string): { form: string } };
    if (chooseEntry(ROOT).form === "dist") cpSync(join(ROOT, "dist"), join(checkout, "dist"), { recursive: true });
    const before = await connectionsReceived(operator);

    const child = spawn(process.execPath, [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "test/integration/process.test.ts", "test/store/settings-store.test.ts"], {
      cwd: checkout,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tmpdir(), QUEUE_REDIS_URL: `unix:${socket}`, DATA_DIR: join(checkout, ".data") },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group: a run past the deadline is killed whole, with the redis-servers its global setup started.
      detached: true,
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    const killer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 100_000);
    const code = await new Promise<number | null>((r) => child.once("exit", r));
    clearTimeout(killer);

    expect(out).toMatch(/\d+ passed, 0 failed/);
    expect(code, out.slice(-3000)).toBe(0);
    expect(await connectionsReceived(operator)).toBe(before);
    expect(await operator.dbsize()).toBe(1);
    expect(readdirSync(join(checkout, ".data")).sort()).toEqual(["redis"]);
  }, 120_000);
});
