import { describe, expect, it } from "vitest";
import { slackSignature, verifySlackSignature } from "../../../src/sources/slack/signature.js";

// Slack's documented example (docs.slack.dev "Verifying requests from Slack").
const DOC = {
  secret: "8f742231b10e8888abcd99yyyzzz85a5",
  timestamp: "1531420618",
  body: "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c",
  signature: "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
};
const at = (offsetSeconds: number) => new Date((Number(DOC.timestamp) + offsetSeconds) * 1000);
const headers = (over: Record<string, string> = {}) => ({ "x-slack-request-timestamp": DOC.timestamp, "x-slack-signature": DOC.signature, ...over });

describe("Slack v0 signature", () => {
  it("computes Slack's documented vector", () => {
    expect(slackSignature(DOC.secret, DOC.timestamp, DOC.body)).toBe(DOC.signature);
  });

  it.each([
    ["the documented request, at its time", headers(), DOC.body, 0, true],
    ["299 s late", headers(), DOC.body, 299, true],
    ["299 s early (clock skew)", headers(), DOC.body, -299, true],
    ["301 s late: a replay", headers(), DOC.body, 301, false],
    ["301 s early: from the future", headers(), DOC.body, -301, false],
    ["a changed body", headers(), DOC.body.replace("roadrunner", "coyote"), 0, false],
    ["a changed timestamp", headers({ "x-slack-request-timestamp": "1531420619" }), DOC.body, 0, false],
    ["another secret's signature", headers({ "x-slack-signature": slackSignature("other", DOC.timestamp, DOC.body) }), DOC.body, 0, false],
    ["a truncated signature", headers({ "x-slack-signature": DOC.signature.slice(0, 20) }), DOC.body, 0, false],
    ["a v1 signature", headers({ "x-slack-signature": DOC.signature.replace("v0=", "v1=") }), DOC.body, 0, false],
    ["no signature", { "x-slack-request-timestamp": DOC.timestamp }, DOC.body, 0, false],
    ["a non-numeric timestamp", headers({ "x-slack-request-timestamp": "1531420618.5" }), DOC.body, 0, false],
  ])("%s → %s", (_name, h, body, offset, ok) => {
    expect(verifySlackSignature(DOC.secret, h, Buffer.from(body), at(offset)).ok).toBe(ok);
  });
});
