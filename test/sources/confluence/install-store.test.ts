import { describe, expect, it } from "vitest";
import { ConnectInstalls } from "../../../src/sources/confluence/install-store.js";
import { SecretBox } from "../../../src/store/secret-box.js";
import { testRedis, uniquePrefix } from "../../helpers/redis.js";
import { CLIENT_KEY, CONFLUENCE_BASE, SECRET_KEY, SHARED_SECRET } from "../../fixtures/confluence/connect.js";

const NEW_KEY = "22".repeat(32);

describe("ConnectInstalls: shared secrets sealed at rest", () => {
  it("stores no byte of the secret in Redis, and reads it back", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const installs = new ConnectInstalls(redis, prefix, new SecretBox(SECRET_KEY));
    await installs.save({ clientKey: CLIENT_KEY, baseUrl: CONFLUENCE_BASE, sharedSecret: SHARED_SECRET });
    const keys = await redis.keys(`${prefix}:*`);
    expect(keys).toEqual([`${prefix}:confluence:install:${CLIENT_KEY}`]);
    const raw = await redis.hgetallBuffer(keys[0]!);
    const stored = Buffer.concat(Object.entries(raw).flatMap(([k, v]) => [Buffer.from(k), v]));
    expect(stored.includes(Buffer.from(SHARED_SECRET))).toBe(false);
    expect(stored.includes(Buffer.from(SHARED_SECRET.slice(0, 12)))).toBe(false);
    expect(stored.includes(Buffer.from(Buffer.from(SHARED_SECRET).toString("base64").slice(0, 12)))).toBe(false);
    expect(await installs.get(CLIENT_KEY)).toEqual({ clientKey: CLIENT_KEY, baseUrl: CONFLUENCE_BASE, sharedSecret: SHARED_SECRET });
  });

  it("a sealed secret moved to another install's record does not open (bound to its client key)", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const installs = new ConnectInstalls(redis, prefix, new SecretBox(SECRET_KEY));
    await installs.save({ clientKey: CLIENT_KEY, baseUrl: CONFLUENCE_BASE, sharedSecret: SHARED_SECRET });
    await installs.save({ clientKey: "attacker", baseUrl: "https://evil.atlassian.net/wiki", sharedSecret: "attacker-secret-0123456789" });
    const victim = await redis.hget(`${prefix}:confluence:install:${CLIENT_KEY}`, "secret");
    await redis.hset(`${prefix}:confluence:install:attacker`, "secret", victim!);
    await expect(installs.get("attacker")).rejects.toThrow(/could not be decrypted/);
  });

  it("key rotation: a secret sealed with the previous key opens and is re-sealed with the current one", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    await new ConnectInstalls(redis, prefix, new SecretBox(SECRET_KEY)).save({ clientKey: CLIENT_KEY, baseUrl: CONFLUENCE_BASE, sharedSecret: SHARED_SECRET });
    const rotated = new ConnectInstalls(redis, prefix, new SecretBox(NEW_KEY, [SECRET_KEY]));
    expect((await rotated.get(CLIENT_KEY))?.sharedSecret).toBe(SHARED_SECRET);
    // Re-sealed: the new key alone (previous key retired) still opens it.
    expect((await new ConnectInstalls(redis, prefix, new SecretBox(NEW_KEY)).get(CLIENT_KEY))?.sharedSecret).toBe(SHARED_SECRET);
  });

  it("uninstall removes the record", async () => {
    const installs = new ConnectInstalls(testRedis(), uniquePrefix(), new SecretBox(SECRET_KEY));
    await installs.save({ clientKey: CLIENT_KEY, baseUrl: CONFLUENCE_BASE, sharedSecret: SHARED_SECRET });
    expect(await installs.remove(CLIENT_KEY)).toBe(true);
    expect(await installs.get(CLIENT_KEY)).toBeNull();
  });
});
