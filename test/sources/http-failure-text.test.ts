import { describe, expect, it } from "vitest";
import { httpFailureText } from "../../src/sources/http-failure-text.js";

describe("httpFailureText (pure)", () => {
  it.each<[number, RegExp]>([
    [400, /^Jira refused the request \(HTTP 400\): boom$/],
    [403, /^Jira refused the request \(HTTP 403\): boom$/],
    [404, /^Jira refused the request \(HTTP 404\): boom$/],
    [409, /^Jira refused the request \(HTTP 409\): boom$/],
    [401, /^Jira did not accept the app's credentials \(HTTP 401\): an operator must check them\. This is not a problem with the request\.$/],
    [429, /^Jira failed \(HTTP 429\): boom\. This is an upstream error, not a problem with the request; try again later\.$/],
    [500, /^Jira failed \(HTTP 500\): boom\. This is an upstream error/],
    [503, /^Jira failed \(HTTP 503\): boom\. This is an upstream error/],
  ])("HTTP %i", (status, want) => expect(httpFailureText("Jira", status, "boom")).toMatch(want));
});
