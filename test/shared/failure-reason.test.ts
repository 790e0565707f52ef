import { describe, expect, it } from "vitest";
import { failureReason } from "../../src/shared/failure-reason.js";

const withStatus = (status: number, message = "boom") => Object.assign(new Error(message), { status });

describe("failureReason: what a check or a reply may say of a crash", () => {
  it.each([
    [
      "a provider's 529, wrapped by a middleware",
      new Error("MiddlewareError", { cause: withStatus(529, '{"type":"overloaded_error"}') }),
      /^an upstream service .* failed \(HTTP 529\), not a problem with your request$/,
    ],
    ["GitHub's 502", withStatus(502), /failed \(HTTP 502\), not a problem with your request$/],
    ["a rate limit", withStatus(429), /\(HTTP 429\)/],
    ["git over HTTPS answered 503", new Error("fatal: unable to access 'https://github.com/o/r.git/': The requested URL returned error: 503"), /\(HTTP 503\)/],
    ["the request's own 422 is not upstream", withStatus(422, "Validation Failed"), /^an internal error; the worker's log has the details$/],
    ["Redis went away", new Error("Connection is closed."), /^the worker lost a connection it needs/],
    ["a reset socket, as a cause", new Error("fetch failed", { cause: new Error("read ECONNRESET") }), /^the worker lost a connection it needs/],
    ["anything else", new Error("replay script /srv/data/run.json ran out: turn 2 of 1"), /^an internal error; the worker's log has the details$/],
  ])("%s", (_name, err, expected) => {
    const reason = failureReason(err, "your request");
    expect(reason).toMatch(expected);
    expect(reason).not.toMatch(/boom|overloaded_error|\/srv|Validation/);
  });
});
