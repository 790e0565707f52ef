import { describe, expect, it } from "vitest";
import { isLoopbackHost, isProduction, metricsAccess } from "../../src/http/metrics-access.js";

describe("metricsAccess", () => {
  it.each([
    [{ token: "t".repeat(16), production: false, host: "0.0.0.0" }, "token"],
    [{ token: "t".repeat(16), production: true, host: "127.0.0.1" }, "token"],
    [{ token: undefined, production: false, host: "0.0.0.0" }, "open"],
    [{ token: undefined, production: true, host: "127.0.0.1" }, "open"],
    [{ token: undefined, production: true, host: "::1" }, "open"],
    [{ token: undefined, production: true, host: "localhost" }, "open"],
    [{ token: undefined, production: true, host: "0.0.0.0" }, "refused"],
    [{ token: undefined, production: true, host: "::" }, "refused"],
    [{ token: undefined, production: true, host: "10.0.0.5" }, "refused"],
  ] as const)("%o → %s", (o, want) => {
    expect(metricsAccess(o)).toBe(want);
  });

  it("loopback and production", () => {
    expect(["127.0.0.1", "127.1.2.3", "[::1]", "LOCALHOST"].every(isLoopbackHost)).toBe(true);
    expect(["0.0.0.0", "::", "128.0.0.1", "localhost.example"].some(isLoopbackHost)).toBe(false);
    expect(isProduction({ NODE_ENV: "production" })).toBe(true);
    expect(isProduction({ APP_URL: "https://x.example" })).toBe(true);
    expect(isProduction({ NODE_ENV: "development" })).toBe(false);
  });
});
