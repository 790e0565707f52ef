import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterEach, inject } from "vitest";

const opened: Redis[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((r) => r.quit().catch(() => r.disconnect())));
});

export function redisSocket(): string {
  return inject("redisSocket");
}

export function redisUrl(): string {
  return `unix:${redisSocket()}`;
}

/** A real connection to the test run's redis-server, closed after the test. */
export function testRedis(): Redis {
  const r = new Redis({ path: redisSocket(), maxRetriesPerRequest: null });
  opened.push(r);
  return r;
}

/** A unique key/queue prefix so tests never see each other's data. */
export function uniquePrefix(): string {
  return `t${randomUUID().slice(0, 8)}`;
}
