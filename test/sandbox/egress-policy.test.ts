import { describe, expect, it } from "vitest";
import { githubApiRules, refusedAddress, refusedByName } from "../../src/sandbox/providers/egress-policy.js";

describe("refusedByName", () => {
  const dotcom = githubApiRules();
  const ghes = githubApiRules("git.corp.example");
  const ghec = githubApiRules("octocorp.ghe.com");
  it.each<[string, ReturnType<typeof githubApiRules>, string, boolean]>([
    ["api.github.com", dotcom, "api.github.com", true],
    ["any spelling of it", dotcom, "API.GitHub.com.", true],
    ["uploads.github.com", dotcom, "uploads.github.com", true],
    ["a subdomain of the API host", dotcom, "x.api.github.com", true],
    ["github.com git stays open", dotcom, "github.com", false],
    ["codeload stays open", dotcom, "codeload.github.com", false],
    ["a look-alike is not the API", dotcom, "api.github.com.evil", false],
    ["a suffix is not a subdomain", dotcom, "notapi.github.com", false],
    ["GHES: the host serves the API under /api/, so all of it is closed", ghes, "git.corp.example", true],
    ["GHES: and its subdomains (uploads., raw., …)", ghes, "uploads.git.corp.example", true],
    ["GHES: github.com's API still closed", ghes, "api.github.com", true],
    ["GHES: github.com git still open", ghes, "github.com", false],
    ["GHE.com: the API lives on api.<host>", ghec, "api.octocorp.ghe.com", true],
    ["GHE.com: git on the host stays open", ghec, "octocorp.ghe.com", false],
  ])("%s", (_name, rules, host, refused) => {
    const why = refusedByName(rules, host);
    if (refused) expect(why).toMatch(/serves the GitHub API, closed to sandboxes$/);
    else expect(why).toBeUndefined();
  });

  it("closes the host GITHUB_API_URL names (a GHES over http, a proxy), whatever GHE_HOST says", () => {
    const rules = githubApiRules("git.corp.example", "http://ghes-api.corp.example:8080/api/v3");
    expect(refusedByName(rules, "ghes-api.corp.example")).toMatch(/serves the GitHub API/);
    expect(refusedByName(rules, "GHES-API.corp.example.")).toMatch(/serves the GitHub API/);
    expect(refusedByName(rules, "git.corp.example")).toMatch(/serves the GitHub API/);
    expect(refusedByName(githubApiRules(undefined, "https://api.github.com"), "api.github.com")).toMatch(/serves the GitHub API/);
  });

  it("takes GHE_HOST with a scheme or a port too", () => {
    expect(githubApiRules("https://git.corp.example:8443/").refuseHosts).toContain("git.corp.example");
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
