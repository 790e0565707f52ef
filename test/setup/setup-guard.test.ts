import { describe, expect, it } from "vitest";
import { crossSiteWrite, hostOf, parseCookies, setupHostAllowed } from "../../src/setup/setup-guard.js";

describe("setupHostAllowed", () => {
  it.each([
    ["localhost:3000", {}, true],
    ["LOCALHOST", {}, true],
    ["127.0.0.1:3000", {}, true],
    ["[::1]:3000", {}, true],
    ["app.localhost:3000", {}, true],
    ["192.168.1.20:3000", {}, true],
    ["[fe80::1]:3000", {}, true],
    ["swe.example.com", { appUrl: "https://swe.example.com/" }, true],
    ["other.example.com", { appUrl: "https://swe.example.com/" }, false],
    ["box.lan:3000", { setupHost: "box.lan" }, true],
    ["rebind.evil.example:3000", {}, false],
    ["localhost.evil.example", {}, false],
    ["", {}, false],
    [undefined, {}, false],
    ["a b", {}, false],
    ["localhost:3000@evil", {}, false],
  ] as const)("%s %o → %s", (host, o, want) => {
    expect(setupHostAllowed(host, o)).toBe(want);
  });

  it("hostOf keeps IPv6 brackets and drops the port", () => {
    expect(hostOf("[::1]:80")).toBe("[::1]");
    expect(hostOf("Example.COM:8080")).toBe("example.com");
  });
});

describe("crossSiteWrite", () => {
  const own = ["http://localhost:3000"];
  it.each([
    [{ contentType: "application/json" }, null],
    [{ contentType: "application/json; charset=utf-8", origin: "http://localhost:3000", secFetchSite: "same-origin" }, null],
    [{ contentType: "application/json", origin: "http://LOCALHOST:3000/" }, null],
    [{ contentType: "text/plain" }, 415],
    [{ contentType: undefined }, 415],
    [{ contentType: "application/x-www-form-urlencoded" }, 415],
    [{ contentType: "multipart/form-data; boundary=x" }, 415],
    [{ contentType: "application/json", secFetchSite: "cross-site" }, 403],
    [{ contentType: "application/json", secFetchSite: "same-site" }, 403],
    [{ contentType: "application/json", secFetchSite: "none" }, 403],
    [{ contentType: "application/json", origin: "https://evil.example" }, 403],
    [{ contentType: "application/json", origin: "null" }, 403],
  ] as const)("%o → %s", (h, status) => {
    expect(crossSiteWrite(h, own)?.status ?? null).toBe(status);
  });
});

describe("parseCookies", () => {
  it("reads pairs, first wins, ignores junk", () => {
    expect([...parseCookies("a=1; b=x=y; a=2; junk; =v")]).toEqual([
      ["a", "1"],
      ["b", "x=y"],
    ]);
    expect(parseCookies(undefined).size).toBe(0);
  });
});
