import { describe, expect, it } from "vitest";
import { addressKey, bodyRefusal, UnverifiedBodies, type BodyCaps, type Held } from "../../src/http/unverified-bodies.js";

const CAPS: BodyCaps = { perAddressBodies: 2, perAddressBytes: 100, totalBodies: 3, totalBytes: 150 };
const h = (bodies: number, bytes: number): Held => ({ bodies, bytes });

describe("bodyRefusal", () => {
  const rows: [string, Held, Held, Held, 429 | 503 | null][] = [
    ["a first body", h(0, 0), h(0, 0), h(1, 50), null],
    ["the address's last body", h(1, 0), h(1, 0), h(1, 100), null],
    ["one body too many from the address", h(2, 10), h(2, 10), h(1, 0), 429],
    ["one byte too many from the address", h(1, 60), h(1, 60), h(0, 41), 429],
    ["more bytes of a held body, within", h(1, 60), h(1, 60), h(0, 40), null],
    ["one body too many on the route", h(0, 0), h(3, 10), h(1, 0), 503],
    ["one byte too many on the route", h(0, 0), h(2, 120), h(1, 31), 503],
    ["the address's cap is named first", h(2, 0), h(3, 150), h(1, 1), 429],
  ];
  for (const [name, address, total, more, status] of rows) {
    it(name, () => {
      const r = bodyRefusal(address, total, more, CAPS);
      expect(r?.status ?? null).toBe(status);
      if (r) expect(r.retryAfter).toBeGreaterThan(0);
    });
  }
});

describe("addressKey", () => {
  const rows: [string | undefined, string][] = [
    ["127.0.0.1", "127.0.0.1"],
    ["::ffff:10.1.2.3", "10.1.2.3"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8:1:2::99", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002:ffff::1", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    [undefined, "unknown"],
  ];
  for (const [remote, key] of rows) it(`${remote} → ${key}`, () => expect(addressKey(remote)).toBe(key));
});

describe("UnverifiedBodies", () => {
  it("counts a body from its slot to its release, with its declared length or what arrived", () => {
    const bodies = new UnverifiedBodies(CAPS);
    const a = bodies.open("a", 60);
    if (!("slot" in a)) throw new Error("refused");
    expect(bodies.held("a")).toEqual(h(1, 60));
    expect(a.slot.take(50)).toBeNull();
    expect(bodies.held("a")).toEqual(h(1, 60));
    expect(a.slot.take(30)).toBeNull();
    expect(bodies.held("a")).toEqual(h(1, 80));
    const b = bodies.open("a", 0);
    if (!("slot" in b)) throw new Error("refused");
    expect(b.slot.take(21)?.status).toBe(429);
    expect("refusal" in bodies.open("a", 0)).toBe(true);
    a.slot.release();
    a.slot.release();
    expect(bodies.held("a")).toEqual(h(1, 0));
    b.slot.release();
    expect(bodies.held()).toEqual(h(0, 0));
  });

  it("the route's caps hold across addresses", () => {
    const bodies = new UnverifiedBodies(CAPS);
    for (const a of ["a", "b", "c"]) expect("slot" in bodies.open(a, 10)).toBe(true);
    const r = bodies.open("d", 10);
    expect("refusal" in r && r.refusal.status).toBe(503);
  });
});
