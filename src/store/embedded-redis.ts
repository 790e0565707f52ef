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
  /** The running redis-server's pid (changes after a restart); undefined when not ours or down. */
  pid(): number | undefined;
  stop(): Promise<void>;
}

export const REDIS_INSTALL_HINT = "redis-server not found: install it with `sudo apt-get install -y redis-server` (or set QUEUE_REDIS_URL)";

const RESTART_FIRST_MS = 500;
const RESTART_MAX_MS = 30_000;
/** Up this long counts as healthy: the next crash restarts at the first delay again. */
const HEALTHY_AFTER_MS = 60_000;

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

/**
 * `setpriv --pdeathsig` (util-linux) sets PR_SET_PDEATHSIG before exec: the kernel sends redis-server
 * SIGTERM when its owner dies, even by SIGKILL, so no orphaned server keeps the socket.
 */
const hasSetpriv = (): boolean => !spawnSync("setpriv", ["--help"], { stdio: "ignore" }).error;

/**
 * With no QUEUE_REDIS_URL: a private redis-server under the data dir, AOF on, on a unix socket. It dies
 * with this process, and is restarted with backoff if it dies while this process runs.
 */
export async function startEmbeddedRedis(dataDir: string, log: Logger): Promise<EmbeddedRedis> {
  const dir = join(dataDir, "redis");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const socket = join(dir, "redis.sock");
  const url = `unix:${socket}`;
  if (existsSync(socket) && (await answers(url))) {
    log.info({ socket }, "using the embedded redis-server another open-swe process started");
    return { url, owned: false, pid: () => undefined, stop: async () => {} };
  }
  if (spawnSync("redis-server", ["--version"], { stdio: "ignore" }).error) throw new ConfigError(REDIS_INSTALL_HINT);
  const args = ["--port", "0", "--unixsocket", socket, "--unixsocketperm", "700", "--dir", dir, "--appendonly", "yes", "--save", ""];
  const setpriv = hasSetpriv();
  if (!setpriv) log.warn("setpriv (util-linux) not found: the embedded redis-server would outlive this process if it were killed");
  const launch = (): ChildProcess => {
    rmSync(socket, { force: true });
    // redis-server creates its AOF files with the umask it inherits: only ours may read them.
    const umask = process.umask(0o077);
    try {
      return setpriv ? spawn("setpriv", ["--pdeathsig", "TERM", "--", "redis-server", ...args], { stdio: "ignore" }) : spawn("redis-server", args, { stdio: "ignore" });
    } finally {
      process.umask(umask);
    }
  };
  const waitReady = async (c: ChildProcess): Promise<void> => {
    const started = Date.now();
    while (!(existsSync(socket) && (await answers(url)))) {
      if (c.exitCode !== null) throw new ConfigError(`embedded redis-server exited with code ${c.exitCode}`);
      if (Date.now() - started > 10_000) {
        c.kill("SIGKILL");
        throw new ConfigError("embedded redis-server did not start within 10 s");
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  let child = launch();
  await waitReady(child);
  log.info({ socket, dir, pid: child.pid }, "embedded redis-server started");
  let stopping = false;
  let delay = RESTART_FIRST_MS;
  let restartTimer: NodeJS.Timeout | undefined;
  const supervise = (c: ChildProcess) => {
    const upSince = Date.now();
    c.once("exit", (code, signal) => {
      if (stopping) return;
      if (Date.now() - upSince > HEALTHY_AFTER_MS) delay = RESTART_FIRST_MS;
      log.warn({ code, signal, restartInMs: delay }, "embedded redis-server exited: restarting it");
      restartTimer = setTimeout(() => {
        restartTimer = undefined;
        if (stopping) return;
        child = launch();
        supervise(child);
        waitReady(child).then(
          () => log.info({ pid: child.pid }, "embedded redis-server restarted"),
          (err: unknown) => log.error({ err: (err as Error).message }, "embedded redis-server restart failed"),
        );
      }, delay);
      delay = Math.min(delay * 2, RESTART_MAX_MS);
    });
  };
  supervise(child);
  return {
    url,
    owned: true,
    pid: () => (child.exitCode === null && child.signalCode === null ? child.pid : undefined),
    stop: () => {
      stopping = true;
      clearTimeout(restartTimer);
      return new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      });
    },
  };
}
