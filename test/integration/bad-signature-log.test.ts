import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { startProcess } from "../../src/main.js";
import { sendWebhook, testConfig } from "../helpers/github-app.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";

describe("a delivery with a bad signature", () => {
  it("is a 400 and one warning line, without a stack or a second `name` key", async () => {
    const lines: string[] = [];
    const proc = await startProcess({
      role: "web",
      config: testConfig({ QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix() }),
      log: createLogger("info", "open-swe", { write: (l: string) => void lines.push(l) }),
      port: 0,
      host: "127.0.0.1",
    });
    try {
      const before = lines.length;
      const res = await sendWebhook(proc.port!, { event: "issue_comment", payload: { action: "created" }, secret: "wrong", deliveryId: "bad-sig-1" });
      expect(res.status).toBe(400);
      await new Promise((r) => setTimeout(r, 100));
      const after = lines.slice(before);
      expect(after.map((l) => (l.match(/"name":/g) ?? []).length)).toEqual(after.map(() => 1));
      const parsed = after.map((l) => JSON.parse(l) as { level: number; msg: string; err?: unknown; deliveryId?: string });
      expect(parsed.filter((l) => l.level >= 40)).toEqual([expect.objectContaining({ level: 40, deliveryId: "bad-sig-1" })]);
      expect(after.join("\n")).not.toMatch(/"stack"/);
    } finally {
      await proc.stop();
    }
  });
});
