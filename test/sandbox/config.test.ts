import { join } from "node:path";
import { SANDBOX_TYPES } from "../../src/config/sandbox-config.js";
import { describe, expect, it } from "vitest";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { createSandboxProvider, sandboxProviders } from "../../src/sandbox/registry.js";

describe("readSandboxConfig", () => {
  it("defaults to the local provider under <cwd>/.data", () => {
    const c = readSandboxConfig({}, "/srv/app");
    expect(c).toMatchObject({ type: "local", root: join("/srv/app", ".data", "sandboxes"), mirrorRoot: join("/srv/app", ".data", "mirrors"), execTimeoutMs: 600_000 });
    expect(c.e2b.apiKey).toBeUndefined();
    expect(c.localEgress).toBe("proxy");
    expect(readSandboxConfig({ SANDBOX_LOCAL_EGRESS: "host" }).localEgress).toBe("host");
    expect(c.maxBundleBytes).toBe(100 * 1024 * 1024);
    expect(readSandboxConfig({ SANDBOX_MAX_BUNDLE_MB: "5" }).maxBundleBytes).toBe(5 * 1024 * 1024);
    expect(c.egressMaxConnections).toBe(128);
    expect(readSandboxConfig({ SANDBOX_EGRESS_MAX_CONNECTIONS: "16" }).egressMaxConnections).toBe(16);
    expect(() => readSandboxConfig({ SANDBOX_EGRESS_MAX_CONNECTIONS: "0" })).toThrow(/SANDBOX_EGRESS_MAX_CONNECTIONS/);
  });

  it("reads vendor settings and treats blank values as unset", () => {
    const c = readSandboxConfig({ SANDBOX_TYPE: "daytona", DAYTONA_API_KEY: "k", E2B_API_KEY: "  ", SANDBOX_EXEC_TIMEOUT_MS: "5000", SANDBOX_ROOT: "/var/sb" });
    expect(c).toMatchObject({ type: "daytona", root: "/var/sb", execTimeoutMs: 5000, daytona: { apiKey: "k", apiUrl: "https://app.daytona.io/api" } });
    expect(c.e2b.apiKey).toBeUndefined();
  });

  it("lifecycle: a day's idle TTL (0 = off), an orphan grace never shorter than two creation limits", () => {
    expect(readSandboxConfig({})).toMatchObject({ idleTtlMs: 1440 * 60_000, orphanGraceMs: 30 * 60_000 });
    expect(readSandboxConfig({ SANDBOX_IDLE_TTL_MINUTES: "0" }).idleTtlMs).toBe(0);
    expect(readSandboxConfig({ SANDBOX_ORPHAN_GRACE_MINUTES: "1", SANDBOX_CREATE_TIMEOUT_MS: "120000" }).orphanGraceMs).toBe(240_000);
    expect(() => readSandboxConfig({ SANDBOX_IDLE_TTL_MINUTES: "soon" })).toThrow(/SANDBOX_IDLE_TTL_MINUTES/);
    expect(() => readSandboxConfig({ SANDBOX_ORPHAN_GRACE_MINUTES: "0" })).toThrow(/SANDBOX_ORPHAN_GRACE_MINUTES/);
  });

  it("rejects an unknown provider and bad numbers with a readable message", () => {
    expect(() => readSandboxConfig({ SANDBOX_TYPE: "docker" })).toThrow(/SANDBOX_TYPE/);
    expect(() => readSandboxConfig({ SANDBOX_EXEC_TIMEOUT_MS: "-1" })).toThrow(/SANDBOX_EXEC_TIMEOUT_MS/);
  });
});

describe("sandbox provider registry", () => {
  it("has one factory per provider type and builds the configured one", () => {
    expect(Object.keys(sandboxProviders).sort()).toEqual([...SANDBOX_TYPES].sort());
    const config = readSandboxConfig({ SANDBOX_ROOT: "/tmp/osw-registry" });
    for (const type of SANDBOX_TYPES) expect(createSandboxProvider(config, type).type).toBe(type);
    expect(createSandboxProvider(config).type).toBe("local");
  });
});
