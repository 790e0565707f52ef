import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { ConfigError } from "../config/env.js";
import { connectRedis } from "./redis.js";

export interface EmbeddedRedis {
  url: string;
  /** false when another open-swe process on this data dir already runs it: then we must not stop it. */
  owned: boolean;
  stop(): Promise<void>;
}

export const REDIS_INSTALL_HINT = "redis-server not found: install it with `sudo apt-get install -y redis-server` (or set QUEUE_REDIS_URL)";

async function answers(url: string): Promise<boolean> {
  const r = connectRedis(url, { enableOfflineQueue: false });
  r.on("error", () => {});
  try {
    await new Promise<void>((resolve, reject) => {
      r.once("ready", resolve);
      r.once("error", reject);
      setTimeout(() => reject(new Error("timeout")), 500);
    });
    return (await r.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/** With no QUEUE_REDIS_URL: a private redis-server under the data dir, AOF on, on a unix socket. */
export async function startEmbeddedRedis(dataDir: string, log: Logger): Promise<EmbeddedRedis> {
  const dir = join(dataDir, "redis");
  mkdirSync(dir, { recursive: true });
  const socket = join(dir, "redis.sock");
  const url = `unix:${socket}`;
  if (existsSync(socket) && (await answers(url))) {
    log.info({ socket }, "using the embedded redis-server another open-swe process started");
    return { url, owned: false, stop: async () => {} };
  }
  if (spawnSync("redis-server", ["--version"], { stdio: "ignore" }).error) throw new ConfigError(REDIS_INSTALL_HINT);
  rmSync(socket, { force: true });
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", "0", "--unixsocket", socket, "--unixsocketperm", "700", "--dir", dir, "--appendonly", "yes", "--save", ""],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  const started = Date.now();
  while (!(existsSync(socket) && (await answers(url)))) {
    if (child.exitCode !== null) throw new ConfigError(`embedded redis-server exited with code ${child.exitCode}`);
    if (Date.now() - started > 10_000) {
      child.kill("SIGKILL");
      throw new ConfigError("embedded redis-server did not start within 10 s");
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  log.info({ socket, dir }, "embedded redis-server started");
  return {
    url,
    owned: true,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
