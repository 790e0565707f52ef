import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PrivateRedis {
  url: string;
  socket: string;
  child: ChildProcess;
  /** Kills it (SIGKILL) and waits for the exit: an outage. */
  kill(): Promise<void>;
}

/** A redis-server of the test's own, for tests that take Redis down; never the shared one. */
export async function startPrivateRedis(extraArgs: string[] = []): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), "osw-redis-"));
  const socket = join(dir, "redis.sock");
  const child = spawn("redis-server", ["--port", "0", "--unixsocket", socket, "--unixsocketperm", "700", "--save", "", "--appendonly", "no", "--dir", dir, ...extraArgs], { stdio: "ignore" });
  for (let i = 0; !existsSync(socket); i++) {
    if (child.exitCode !== null || i > 400) throw new Error("private redis-server did not start");
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    url: `unix:${socket}`,
    socket,
    child,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}
