import { createQueryStringHash, encodeSymmetric } from "atlassian-jwt";
import { describe, expect, it } from "vitest";
import type { InboundRequest } from "../../../src/sources/source.js";
import { connectQsh, connectToken, unverifiedIssuer, verifyAsymmetric, verifySymmetric } from "../../../src/sources/confluence/connect-jwt.js";
import { cachedKeyFetcher } from "../../../src/sources/confluence/install-keys.js";
import { APP_URL, CLIENT_KEY, KID, SHARED_SECRET, atlassianKeys, installToken, webhookToken } from "../../fixtures/confluence/connect.js";

const req = (url: string, token: string, method = "POST"): InboundRequest => ({ method, url, headers: { authorization: `JWT ${token}` }, rawBody: Buffer.from("{}"), receivedAt: new Date() });
const key = async () => atlassianKeys().publicKey;

describe("connectQsh: atlassian-jwt's own documented vectors", () => {
  // From atlassian-jwt-js's test suite (the `qsh` cases).
  it.each([
    ["GET", "/path", "799be84a7fa35570087163c0cd9af3abff7ac05c2c12ba0bb1d7eebc984b3ac2"],
    ["GET", "/", "c88caad15a1c1a900b8ac08aa9686f4e8184539bea1deda36e2f649430df3239"],
    [
      "GET",
      "/hello-world?lic=none&tz=Australia%2FSydney&cp=%2Fjira&user_key=&loc=en-US&user_id=&jwt=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.e30.x&xdm_e=http%3A%2F%2Fstorm%3A2990&xdm_c=channel-servlet-hello-world&xdm_p=1",
      "8063ff4ca1e41df7bc90c8ab6d0f6207d491cf6dad7c66ea797b4614b71922e9",
    ],
  ])("%s %s", (method, url, hash) => {
    expect(connectQsh(method, url)).toBe(hash);
  });

  it("a path under the app's base path hashes as the path below it; `&` in a path is not a query", () => {
    expect(connectQsh("GET", "/base/path", "https://x.test/base")).toBe("799be84a7fa35570087163c0cd9af3abff7ac05c2c12ba0bb1d7eebc984b3ac2");
    expect(connectQsh("POST", "/rest/api/2/project&a=b?x=y")).not.toBe(connectQsh("POST", "/rest/api/2/project?a=b&x=y"));
    expect(connectQsh("GET", "/path")).toBe(createQueryStringHash({ method: "GET", pathname: "/path" }));
  });
});

describe("verifySymmetric (webhooks, HS256 with the install's secret)", () => {
  const url = "/webhooks/confluence";
  const t = Math.floor(Date.now() / 1000);
  it("accepts a fresh token with the right qsh", () => {
    expect(verifySymmetric(webhookToken({ url }), SHARED_SECRET, req(url, webhookToken({ url })), APP_URL)).toMatchObject({ ok: true, claims: { iss: CLIENT_KEY } });
  });
  it.each([
    ["expired", webhookToken({ url, iat: t - 600, exp: t - 300 }), "token expired"],
    ["issued in the future", webhookToken({ url, iat: t + 600, exp: t + 900 }), "token issued in the future"],
    ["not yet valid (nbf)", webhookToken({ url, nbf: t + 600 }), "token not yet valid"],
    ["a tampered qsh", webhookToken({ url, qsh: connectQsh("POST", "/webhooks/other") }), "qsh does not match the request"],
    ["a qsh for GET on a POST", webhookToken({ url, qsh: connectQsh("GET", url) }), "qsh does not match the request"],
    ["context-qsh", webhookToken({ url, qsh: "context-qsh" }), "qsh does not match the request"],
    ["signed with another secret", webhookToken({ url, secret: "another-secret-0123456789" }), "signature or algorithm refused"],
    ["no exp", encodeSymmetric({ iss: CLIENT_KEY, iat: t, qsh: connectQsh("POST", url) }, SHARED_SECRET), "claims missing or malformed (exp)"],
    [
      "alg none",
      `${Buffer.from('{"alg":"none","typ":"JWT"}').toString("base64url")}.${Buffer.from(JSON.stringify({ iss: CLIENT_KEY, iat: t, exp: t + 60, qsh: connectQsh("POST", url) })).toString("base64url")}.`,
      "signature or algorithm refused",
    ],
  ])("refuses %s", (_n, token, reason) => {
    expect(verifySymmetric(token, SHARED_SECRET, req(url, token), APP_URL)).toEqual({ ok: false, reason });
  });
  it("refuses an RS256 token where HS256 is expected (no algorithm confusion)", () => {
    const token = installToken({ url });
    expect(verifySymmetric(token, atlassianKeys().publicKey, req(url, token), APP_URL).ok).toBe(false);
    expect(unverifiedIssuer(token)).toBeNull();
  });
  it("reads the token only from `Authorization: JWT`", () => {
    expect(connectToken({ ...req(url, "x"), headers: { authorization: "Bearer a.b.c" } })).toBeNull();
    expect(connectToken({ ...req(url, "x"), headers: {} })).toBeNull();
    expect(connectToken(req(url, "a.b.c"))).toBe("a.b.c");
  });
});

describe("verifyAsymmetric (signed install, RS256 by kid)", () => {
  const url = "/connect/installed";
  it("accepts Atlassian's signature with aud = the app", async () => {
    const token = installToken({ url });
    expect(await verifyAsymmetric(token, key, req(url, token), APP_URL)).toMatchObject({ ok: true, claims: { iss: CLIENT_KEY } });
  });
  it("refuses a token signed by another key, for another app, expired, or with a tampered qsh", async () => {
    const t = Math.floor(Date.now() / 1000);
    const other = (await import("node:crypto")).generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
    const cases: [string, string][] = [
      [installToken({ url, privateKey: other.privateKey }), "signature or algorithm refused"],
      [installToken({ url, aud: "https://evil.test" }), "aud is not this app"],
      [installToken({ url, iat: t - 900, exp: t - 600 }), "token expired"],
      [installToken({ url, qsh: connectQsh("POST", "/connect/uninstalled") }), "qsh does not match the request"],
      [installToken({ url, kid: "../../etc/passwd" }), "kid missing or not a key id"],
      [webhookToken({ url }), "kid missing or not a key id"],
    ];
    for (const [token, reason] of cases) expect(await verifyAsymmetric(token, key, req(url, token), APP_URL)).toEqual({ ok: false, reason });
  });
  it("a key that cannot be fetched refuses; fetched keys are cached per kid, failures are not", async () => {
    let calls = 0;
    let fail = true;
    const fetcher = cachedKeyFetcher(async (kid) => {
      calls++;
      expect(kid).toBe(KID);
      if (fail) throw new Error("down");
      return atlassianKeys().publicKey;
    });
    const token = installToken({ url });
    expect(await verifyAsymmetric(token, fetcher, req(url, token), APP_URL)).toEqual({ ok: false, reason: "the install key for kid could not be fetched" });
    fail = false;
    expect((await verifyAsymmetric(token, fetcher, req(url, token), APP_URL)).ok).toBe(true);
    expect((await verifyAsymmetric(token, fetcher, req(url, token), APP_URL)).ok).toBe(true);
    expect(calls).toBe(2);
  });
});
