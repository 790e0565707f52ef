import { describe, expect, it } from "vitest";
import { githubApiRules, refusedAddress, refusedByName } from "../../src/sandbox/providers/egress-policy.js";

describe("refusedByName", () => {
  const dotcom = githubApiRules();
  const ghes = githubApiRules("git.corp.example");
  const ghec = githubApiRules("octocorp.ghe.com");
  it.each<[string, ReturnType<typeof githubApiRules>, string, string | undefined, RegExp | undefined]>([
    ["api.github.com CONNECT", dotcom, "api.github.com", undefined, /GitHub API host/],
    ["api.github.com plain HTTP", dotcom, "API.GitHub.com.", "/repos", /GitHub API host/],
    ["uploads.github.com", dotcom, "uploads.github.com", undefined, /GitHub API host/],
    ["a subdomain of the API host", dotcom, "x.api.github.com", undefined, /GitHub API host/],
    ["github.com git stays open", dotcom, "github.com", undefined, undefined],
    ["codeload stays open", dotcom, "codeload.github.com", undefined, undefined],
    ["a look-alike is not the API", dotcom, "notapi.github.com.evil", undefined, undefined],
    ["GHES: tunnels to the host are closed", ghes, "git.corp.example", undefined, /HTTPS tunnels to it are closed/],
    ["GHES: plain HTTP under /api/", ghes, "git.corp.example", "/api/v3/repos/o/r/pulls/1/reviews", /\/api\/ is the GitHub API/],
    ["GHES: plain HTTP elsewhere", ghes, "git.corp.example", "/o/r.git/info/refs", undefined],
    ["GHES: api.<host>", ghes, "api.git.corp.example", undefined, /GitHub API host/],
    ["GHES: github.com API still closed", ghes, "api.github.com", undefined, /GitHub API host/],
    ["GHE.com: the API lives on api.<host>", ghec, "api.octocorp.ghe.com", undefined, /GitHub API host/],
    ["GHE.com: git on the host stays open", ghec, "octocorp.ghe.com", undefined, undefined],
  ])("%s", (_name, rules, host, path, expected) => {
    const why = refusedByName(rules, host, path);
    if (expected) expect(why).toMatch(expected);
    else expect(why).toBeUndefined();
  });

  it("takes GHE_HOST with a scheme or a port too", () => {
    expect(githubApiRules("https://git.corp.example:8443/").refuseApiPathHosts).toEqual(["git.corp.example"]);
  });
});

describe("refusedAddress", () => {
  const rules = { ...githubApiRules(), allow: [{ address: "127.0.0.1", port: 8080 }] };
  it.each<[string, number, RegExp | undefined]>([
    ["8.8.8.8", 443, undefined],
    ["127.0.0.1", 8080, undefined],
    ["127.0.0.1", 8081, /loopback/],
    ["[::1]", 8080, /loopback/],
    ["169.254.169.254", 80, /metadata/],
    ["10.0.0.1", 80, /private/],
    ["64:ff9b::a00:1", 80, /private/],
    ["example.com", 80, /not an IP address/],
  ])("%s:%i", (address, port, expected) => {
    const why = refusedAddress(rules, address, port);
    if (expected) expect(why).toMatch(expected);
    else expect(why).toBeUndefined();
  });
});
