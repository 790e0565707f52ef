import { describe, expect, it } from "vitest";
import { verifyLinearRequest } from "../../../src/sources/linear/verify-linear.js";
import { linearSource } from "../../../src/sources/linear/index.js";
import { commentEvent, linearEnv, linearRequest, SECRET, signLinear } from "./linear-fixtures.js";

const route = linearSource(linearEnv()).routes[0]!;

describe("Linear webhook verification", () => {
  it("accepts a delivery signed with the secret, within the window", async () => {
    expect(await route.verify(linearRequest(commentEvent()))).toEqual({ ok: true });
  });

  const refused: Array<[string, () => ReturnType<typeof linearRequest>, RegExp]> = [
    [
      "a tampered body",
      () => {
        const req = linearRequest(commentEvent());
        return { ...req, rawBody: Buffer.from(req.rawBody.toString().replace("flaky", "FLAKY")) };
      },
      /signature/i,
    ],
    ["another secret", () => linearRequest(commentEvent(), { secret: "someone-else" }), /signature/i],
    ["no signature", () => linearRequest(commentEvent(), { signature: null }), /no linear-signature/],
    ["a truncated signature", () => linearRequest(commentEvent(), { signature: signLinear(JSON.stringify(commentEvent())).slice(0, 10) }), /signature/i],
    ["a stale timestamp (61 s old)", () => linearRequest(commentEvent({}, { webhookTimestamp: Date.now() - 61_000 })), /timestamp/i],
    ["a future timestamp (61 s ahead)", () => linearRequest(commentEvent({}, { webhookTimestamp: Date.now() + 61_000 })), /timestamp/i],
    ["no timestamp", () => linearRequest(commentEvent({}, { webhookTimestamp: undefined })), /timestamp/i],
    ["a string timestamp", () => linearRequest(commentEvent({}, { webhookTimestamp: String(Date.now()) })), /timestamp/i],
    ["a signed body that is not JSON", () => linearRequest(null, { raw: "not json" }), /linear verify|JSON/],
  ];
  it.each(refused)("refuses %s", async (_name, make, reason) => {
    const v = await route.verify(make());
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.reason).toMatch(reason);
  });

  it("judges the window by arrival: a delivery that waited 5 minutes after arriving is stale", () => {
    // The SDK compares with the clock now (passes); the arrival time says it is old.
    const req = linearRequest(commentEvent(), { receivedAt: new Date(Date.now() + 5 * 60_000) });
    expect(verifyLinearRequest(SECRET, req)).toEqual({ ok: false, reason: "webhookTimestamp older than 60 s" });
    const early = linearRequest(commentEvent(), { receivedAt: new Date(Date.now() - 5 * 60_000) });
    expect(verifyLinearRequest(SECRET, early)).toEqual({ ok: false, reason: "webhookTimestamp more than 60 s ahead" });
  });

  it("refuses everything when LINEAR_WEBHOOK_SECRET is unset, and says the source is not configured", async () => {
    const source = linearSource(linearEnv({ LINEAR_WEBHOOK_SECRET: "" }));
    expect(source).toMatchObject({ configured: false, secretEnv: "LINEAR_WEBHOOK_SECRET" });
    const v = await source.routes[0]!.verify(linearRequest(commentEvent()));
    expect(v).toEqual({ ok: false, reason: "LINEAR_WEBHOOK_SECRET is not set" });
  });

  it("no API credential: refused at the door (the worker could never answer), and start-up names LINEAR_API_KEY", async () => {
    const source = linearSource(linearEnv({ LINEAR_API_KEY: "" }));
    expect(source).toMatchObject({ configured: false, secretEnv: "LINEAR_API_KEY" });
    expect(await source.routes[0]!.verify(linearRequest(commentEvent()))).toEqual({ ok: false, reason: "LINEAR_API_KEY or LINEAR_ACCESS_TOKEN is not set" });
    expect(linearSource(linearEnv({ LINEAR_API_KEY: "", LINEAR_ACCESS_TOKEN: "lin_oauth_x" })).configured).toBe(true);
  });

  it("never throws for garbage", async () => {
    const req = linearRequest(null, { raw: "\u0000\u0001", signature: "zz" });
    await expect(route.verify(req)).resolves.toMatchObject({ ok: false });
    await expect(route.verify({ ...req, method: "GET" })).resolves.toMatchObject({ ok: false });
  });
});
