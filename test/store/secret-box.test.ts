import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretBox } from "../../src/store/secret-box.js";

const key = () => randomBytes(32).toString("hex");

describe("SecretBox", () => {
  it("round-trips and never stores the plaintext", () => {
    const box = new SecretBox(key());
    const sealed = box.seal("gho_usertoken", "user:alice");
    expect(sealed).not.toContain("gho_usertoken");
    expect(box.open(sealed, "user:alice")).toBe("gho_usertoken");
    expect(box.seal("x")).not.toBe(box.seal("x"));
  });

  it.each([
    ["another key", (s: string) => new SecretBox(key()).open(s, "user:alice")],
    ["another record (aad)", (s: string) => boxA.open(s, "user:bob")],
    ["a flipped byte", (s: string) => boxA.open(s.slice(0, -2) + (s.endsWith("A") ? "BB" : "AA"), "user:alice")],
    ["garbage", () => boxA.open("nope", "")],
  ])("refuses %s", (_n, attempt) => {
    const sealed = boxA.seal("secret", "user:alice");
    expect(() => attempt(sealed)).toThrow(/could not be decrypted|not a sealed secret/);
  });

  it("rotates: a previous key still decrypts (and says to re-seal), a new seal uses the current key only", () => {
    const oldKey = key();
    const sealedOld = new SecretBox(oldKey).seal("xoxb-install", "install:a");
    const rotated = new SecretBox(key(), [oldKey]);
    expect(rotated.open(sealedOld, "install:a")).toBe("xoxb-install");
    expect(rotated.needsReseal(sealedOld, "install:a")).toBe(true);
    const resealed = rotated.seal("xoxb-install", "install:a");
    expect(rotated.needsReseal(resealed, "install:a")).toBe(false);
    expect(() => new SecretBox(oldKey).open(resealed, "install:a")).toThrow(/could not be decrypted/);
    expect(() => new SecretBox(key(), ["short"])).toThrow(/64 hex/);
  });

  it("rejects a short key", () => {
    expect(() => new SecretBox("abcd")).toThrow(/64 hex/);
  });
});

const boxA = new SecretBox(randomBytes(32).toString("hex"));
