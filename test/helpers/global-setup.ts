import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { dropOperatorEnv } from "./operator-env.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisSocket: string;
  }
}

let child: ChildProcess | undefined;
let dir: string | undefined;

/** One real redis-server for the whole run, on a unix socket in a temp dir; tests isolate by key prefix. */
export async function setup(project: TestProject): Promise<void> {
  dropOperatorEnv(process.env);
  dir = mkdtempSync(join(tmpdir(), "open-swe-test-redis-"));
  const socket = join(dir, "redis.sock");
  child = spawn("redis-server", ["--port", "0", "--unixsocket", socket, "--unixsocketperm", "700", "--save", "", "--appendonly", "no", "--dir", dir], { stdio: "ignore" });
  const started = Date.now();
  while (!existsSync(socket)) {
    if (child.exitCode !== null) throw new Error("redis-server exited at start: install it with `apt-get install -y redis-server`");
    if (Date.now() - started > 10_000) throw new Error("redis-server did not open its socket within 10 s");
    await new Promise((r) => setTimeout(r, 20));
  }
  project.provide("redisSocket", socket);
}

export async function teardown(): Promise<void> {
  child?.kill("SIGTERM");
  if (dir) rmSync(dir, { recursive: true, force: true });
}
