import nock from "nock";
import { describe, expect, it } from "vitest";
import { checkGhesRequest, checkRequest, checkResponse, GHES_VERSION } from "./github-openapi.js";
import { takeViolations, vendorTally } from "./nock-contract.js";

describe("GitHub's OpenAPI description as the contract of a mocked request", () => {
  it.each([
    ["a documented route and body", "POST", "/repos/octo/hello/issues/3/comments", { body: "hi" }, []],
    ["an unknown route", "GET", "/repos/octo/hello/nonsense/1", undefined, ["GET /repos/octo/hello/nonsense/1: no such route in GitHub's REST description"]],
    [
      "a missing required field",
      "POST",
      "/repos/octo/hello/issues/3/comments",
      { text: "hi" },
      ["issues/create-comment: request body $ must have required property 'body'", "issues/create-comment: request body $ must NOT have additional properties (text)"],
    ],
    [
      "an undocumented field where the body forbids others",
      "PATCH",
      "/repos/octo/hello/pulls/3",
      { title: "t", colour: "red" },
      ["pulls/update: request body $ must NOT have additional properties (colour)"],
    ],
    ["a wrong type in the body", "POST", "/repos/octo/hello/issues/3/comments", { body: 3 }, ["issues/create-comment: request body $/body must be string"]],
    ["a wrong path parameter type", "GET", "/repos/octo/hello/pulls/abc", undefined, ['pulls/get: path parameter pull_number must be an integer (got "abc")']],
    ["an undocumented query parameter", "GET", "/repos/octo/hello/pulls?colour=red", undefined, ["pulls/list: query parameter colour is not documented"]],
    ["a query value outside its enum", "GET", "/repos/octo/hello/pulls?state=merged", undefined, ['pulls/list: query parameter state must be one of open, closed, all (got "merged")']],
    ["a contents path with slashes", "GET", "/repos/octo/hello/contents/src/a.ts?ref=main", undefined, []],
    [
      "GitHub's own format repo.nwo (owner/name)",
      "POST",
      "/repos/octo/hello/pulls",
      { head: "x", base: "main", head_repo: "not a repo" },
      ['pulls/create: request body $/head_repo must match format "repo.nwo"'],
    ],
  ])("%s", (_name, method, path, body, expected) => {
    expect(checkRequest(method, path, body === undefined ? undefined : JSON.stringify(body)).verdict.violations).toEqual(expected);
  });

  it("has no contract for GraphQL (counted, not failed)", () => {
    expect(checkRequest("POST", "/graphql", '{"query":"{ viewer { login } }"}').verdict).toEqual({ kind: "no-contract", violations: [] });
  });
});

describe("GitHub's OpenAPI description as the contract of a mocked response", () => {
  const pulls = checkRequest("GET", "/repos/octo/hello/pulls", undefined).operation!;
  it.each([
    ["fields the code reads, others omitted", 200, [{ number: 1, head: { ref: "x", sha: "abc" } }], []],
    ["a field of the wrong type", 200, [{ number: "1" }], ["pulls/list: response 200 body $/0/number must be integer"]],
    ["a nested field of the wrong type", 200, [{ head: { ref: 7 } }], ["pulls/list: response 200 body $/0/head/ref must be string"]],
    ["an undocumented status", 201, [], ["pulls/list: status 201 is not documented (documented: 200, 304, 422)"]],
    ["an outage, which any endpoint may answer", 503, { message: "unavailable" }, []],
    ["a rate limit, which any endpoint may answer", 429, { message: "slow down" }, []],
    ["a resource gone or hidden, which any endpoint may answer", 404, { message: "Not Found" }, []],
    ["a 409 the operation does not document", 409, { message: "Conflict" }, ["pulls/list: status 409 is not documented (documented: 200, 304, 422)"]],
    ["null where the description allows it", 200, [{ body: null, milestone: null }], []],
  ])("%s", (_name, status, body, expected) => {
    expect(checkResponse(pulls, status, body)).toEqual(expected);
  });
});

describe("the nock hook setup-each installs", () => {
  it("checks a static reply's request and response", async () => {
    nock("https://api.github.com").post("/repos/octo/hello/issues/3/comments").reply(200, { id: "7" });
    await fetch("https://api.github.com/repos/octo/hello/issues/3/comments", { method: "POST", body: JSON.stringify({ text: "hi" }) });
    expect(takeViolations()).toEqual([
      "issues/create-comment: request body $ must have required property 'body'",
      "issues/create-comment: request body $ must NOT have additional properties (text)",
      "issues/create-comment: status 200 is not documented (documented: 201, 403, 404, 410, 422)",
    ]);
  });

  it("checks what a reply function returns", async () => {
    nock("https://api.github.com")
      .get("/repos/octo/hello")
      .reply(200, () => ({ default_branch: 1 }));
    nock("https://api.github.com")
      .get("/repos/octo/other")
      .reply(async () => [418, {}]);
    await fetch("https://api.github.com/repos/octo/hello");
    await fetch("https://api.github.com/repos/octo/other");
    expect(takeViolations()).toEqual(["repos/get: response 200 body $/default_branch must be string", "repos/get: status 418 is not documented (documented: 200, 301, 403, 404)"]);
  });

  it("leaves other hosts alone", async () => {
    nock("https://example.com").get("/anything").reply(299, { whatever: 1 });
    await fetch("https://example.com/anything");
    expect(takeViolations()).toEqual([]);
  });
});

describe("the GHES description as the contract of a mocked GitHub Enterprise Server", () => {
  it.each([
    ["a documented route and body", "POST", "/api/v3/repos/octo/hello/issues/3/comments", { body: "hi" }, []],
    ["an unknown route", "GET", "/api/v3/repos/octo/hello/nonsense/1", undefined, [`GET /repos/octo/hello/nonsense/1: no such route in GHES ${GHES_VERSION}'s REST description`]],
    ["a wrong type in the body", "POST", "/api/v3/repos/octo/hello/issues/3/comments", { body: 3 }, ["issues/create-comment: request body $/body must be string"]],
    ["a path outside the API prefix", "GET", "/repos/octo/hello", undefined, ["GET /repos/octo/hello: a GHES API path starts with /api/v3/"]],
    // api.github.com's copilot routes are no GHES route: the GHES description is the one consulted.
    ["a route only api.github.com has", "GET", "/api/v3/orgs/octo/copilot/billing", undefined, [`GET /orgs/octo/copilot/billing: no such route in GHES ${GHES_VERSION}'s REST description`]],
  ])("%s", (_name, method, path, body, expected) => {
    expect(checkGhesRequest(method, path, body === undefined ? undefined : JSON.stringify(body)).verdict.violations).toEqual(expected);
  });

  it("has no contract for GHES's GraphQL (counted, not failed)", () => {
    expect(checkGhesRequest("POST", "/api/graphql", "{}").verdict).toEqual({ kind: "no-contract", violations: [] });
  });

  it("fails a deliberately bad GHES mock through the hook, with the operation id and the JSON path", async () => {
    nock("https://ghe.acme.example").post("/api/v3/repos/octo/hello/issues/3/comments").reply(200, { id: "7" });
    nock("https://ghe.acme.example").get("/api/v3/repos/octo/hello").reply(200, { default_branch: 1 });
    await fetch("https://ghe.acme.example/api/v3/repos/octo/hello/issues/3/comments", { method: "POST", body: JSON.stringify({ text: "hi" }) });
    await fetch("https://ghe.acme.example/api/v3/repos/octo/hello");
    expect(takeViolations()).toEqual([
      "issues/create-comment: request body $ must have required property 'body'",
      "issues/create-comment: request body $ must NOT have additional properties (text)",
      "issues/create-comment: status 200 is not documented (documented: 201, 403, 404, 410, 422)",
      "repos/get: response 200 body $/default_branch must be string",
    ]);
    expect(vendorTally("github-ghes").validated).toBeGreaterThanOrEqual(2);
  });

  it("leaves a non-API path on a GHES host alone (its git and web pages have no REST contract)", async () => {
    nock("https://ghe.acme.example").get("/octo/hello").reply(299, { whatever: 1 });
    await fetch("https://ghe.acme.example/octo/hello");
    expect(takeViolations()).toEqual([]);
  });
});
