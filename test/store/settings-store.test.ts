import { SecretBox } from "../../src/store/secret-box.js";
import { describe, expect, it } from "vitest";
import { runSettingsCli, UsageError } from "../../src/operator/settings-cli.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

describe("SettingsStore (real Redis)", () => {
  it("stores enabled repos, profiles, team models, autofix toggles, installs", async () => {
    const s = new SettingsStore(testRedis(), uniquePrefix());
    await s.enableRepo("Octo/Hello");
    expect(await s.isRepoEnabled("octo/hello")).toBe(true);
    expect(await s.listEnabledRepos()).toEqual(["octo/hello"]);
    await s.disableRepo("octo/HELLO");
    expect(await s.isRepoEnabled("octo/hello")).toBe(false);

    expect(await s.getProfile("alice")).toEqual({ autoFixCi: false, autoReview: true, prsAsMe: false });
    await s.setProfile("Alice", { autoFixCi: true, model: "claude-sonnet-4-5" });
    expect(await s.getProfile("alice")).toEqual({ autoFixCi: true, autoReview: true, model: "claude-sonnet-4-5", prsAsMe: false });

    await s.setTeamModel("agent", "claude-opus-4-1");
    expect(await s.getTeamModels()).toEqual({ agent: "claude-opus-4-1" });
    await s.setTeamModel("agent", null);
    expect(await s.getTeamModels()).toEqual({});

    expect(await s.getAutofix("octo/hello#3")).toBeNull();
    await s.setAutofix("Octo/Hello#3", false);
    expect(await s.getAutofix("octo/hello#3")).toBe(false);
    await expect(s.setAutofix("not a pr", true)).rejects.toThrow(/owner\/repo#number/);

    await s.recordInstalled("octo/a", { installationId: 1, repoId: 10 });
    await s.recordInstalled("octo/b", { installationId: 2 });
    expect(await s.removeInstallation(1)).toBe(1);
    expect(Object.keys(await s.listInstalled())).toEqual(["octo/b"]);
  });

  it("rejects a profile with the wrong types", async () => {
    const s = new SettingsStore(testRedis(), uniquePrefix());
    await expect(s.setProfile("bob", { autoFixCi: "yes" as unknown as boolean })).rejects.toThrow();
  });
});

describe("open-swe settings CLI", () => {
  async function run(store: SettingsStore, ...argv: string[]) {
    const out: string[] = [];
    await runSettingsCli(argv, store, (l) => out.push(l));
    return JSON.parse(out.join("\n"));
  }

  it("reads and changes settings", async () => {
    const store = new SettingsStore(testRedis(), uniquePrefix());
    expect(await run(store, "repos", "enable", "octo/hello")).toEqual(["octo/hello"]);
    expect(await run(store, "profile", "set", "alice", "autoFixCi=true", "model=claude-sonnet-4-5")).toMatchObject({ autoFixCi: true, model: "claude-sonnet-4-5" });
    expect(await run(store, "autofix", "set", "octo/hello#1", "on")).toEqual({ pr: "octo/hello#1", autofix: true });
    expect(await run(store, "team-model", "set", "reviewer", "claude-opus-4-6")).toEqual({ reviewer: "claude-opus-4-6" });
  });

  it("team tool policies: set, list, clear", async () => {
    const store = new SettingsStore(testRedis(), uniquePrefix());
    expect(await run(store, "tool-policy", "set", "execute", "ask")).toEqual({ execute: "ask" });
    expect(await run(store, "tool-policy", "set", "mcp__docs__*", "deny")).toEqual({ execute: "ask", "mcp__docs__*": "deny" });
    expect(await run(store, "tool-policy", "set", "execute", "none")).toEqual({ "mcp__docs__*": "deny" });
    expect(await store.getToolPolicies()).toEqual({ "mcp__docs__*": "deny" });
  });

  it("team MCP servers: set, list, remove; a bad one is refused", async () => {
    const store = new SettingsStore(testRedis(), uniquePrefix());
    expect(await run(store, "mcp-server", "set", "docs", '{"url":"https://mcp.example.com/mcp"}')).toEqual({ docs: { url: "https://mcp.example.com/mcp", transport: "http", headers: {} } });
    expect(await run(store, "mcp-server", "remove", "docs")).toEqual({});
    await expect(runSettingsCli(["mcp-server", "set", "docs", "{nope"], store, () => {})).rejects.toThrow(/must be JSON/);
    await expect(runSettingsCli(["mcp-server", "set", "docs", '{"url":"ftp://x"}'], store, () => {})).rejects.toThrow(UsageError);
  });

  it("MCP secrets are stored sealed, listed by name only, and need the deployment key", async () => {
    const store = new SettingsStore(testRedis(), uniquePrefix());
    const box = new SecretBox("a".repeat(64));
    const out: string[] = [];
    await runSettingsCli(["mcp-secret", "set", "DOCS_TOKEN", "s3cret value"], store, (l) => out.push(l), box);
    expect(JSON.parse(out.join("\n"))).toEqual(["DOCS_TOKEN"]);
    expect(await run(store, "mcp-secret", "list")).toEqual(["DOCS_TOKEN"]);
    expect(await store.getMcpSecrets(box)).toEqual({ DOCS_TOKEN: "s3cret value" });
    const raw = Object.values(await testRedis().hgetall(`${(store as unknown as { key: (...p: string[]) => string }).key("mcp-secrets")}`));
    expect(raw.join()).not.toContain("s3cret");
    // Another key cannot open it: the secret is left out rather than failing the run.
    expect(await store.getMcpSecrets(new SecretBox("b".repeat(64)))).toEqual({});
    await expect(runSettingsCli(["mcp-secret", "set", "X", "v"], store, () => {})).rejects.toThrow(/OPEN_SWE_SECRET_KEY/);
    await expect(runSettingsCli(["mcp-secret", "set", "lower", "v"], store, () => {}, box)).rejects.toThrow(UsageError);
  });

  it("a profile set changes only the keys it names", async () => {
    const store = new SettingsStore(testRedis(), uniquePrefix());
    await run(store, "profile", "set", "alice", "autoFixCi=true", "autoReview=false", "model=claude-sonnet-4-6");
    expect(await run(store, "profile", "set", "alice", "effort=high")).toEqual({ autoFixCi: true, autoReview: false, model: "claude-sonnet-4-6", effort: "high", prsAsMe: false });
    expect(await store.getProfile("alice")).toEqual({ autoFixCi: true, autoReview: false, model: "claude-sonnet-4-6", effort: "high", prsAsMe: false });
    // The store's own API is a patch too.
    expect(await store.setProfile("alice", { model: "claude-y" })).toEqual({ autoFixCi: true, autoReview: false, model: "claude-y", effort: "high", prsAsMe: false });
  });

  it.each([
    [["nope"], /unknown settings command/],
    [["repos", "enable"], /missing argument/],
    [["repos", "enable", "not-a-repo"], /^"not-a-repo" is not a repository name: expected owner\/name/],
    [["profile", "set", "alice", "model=claude-x"], /^unknown model "claude-x": one of claude-/],
    [["profile", "set", "alice", "autoFixCi"], /key=value/],
    [["profile", "set", "alice", "colour=blue"], /invalid profile/],
    [["autofix", "set", "o/r#1", "maybe"], /on or off/],
    [["team-model", "set", "boss", "x"], /agent or reviewer/],
    [["tool-policy", "set", "execute", "maybe"], /always_allow, ask, deny or none/],
    [["tool-policy", "set", "rm -rf", "deny"], /a tool name/],
  ])("%j is refused with a reason", async (argv, message) => {
    const store = new SettingsStore(testRedis(), uniquePrefix());
    const err = await runSettingsCli(argv, store, () => {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(message);
  });
});

describe("source identities and default repositories", () => {
  it("maps a source user to a GitHub login and a channel to a repository, lower-cased, validated", async () => {
    const s = new SettingsStore(testRedis(), uniquePrefix());
    expect(await s.getIdentity("slack:U1")).toBeNull();
    await s.setIdentity("slack:U1", "Dana");
    expect(await s.getIdentity("slack:U1")).toBe("dana");
    await expect(s.setIdentity("U1", "dana")).rejects.toThrow(/source:id/);
    await expect(s.setIdentity("slack:U1", "not a login")).rejects.toThrow(/GitHub login/);
    await s.setSourceRepo("slack:C9", "Octo/Hello");
    expect(await s.getSourceRepo("slack:C9")).toBe("octo/hello");
    await expect(s.setSourceRepo("slack:C9", "../x")).rejects.toThrow(/not a repository name/);
    expect(await s.removeSourceRepo("slack:C9")).toBe(true);
    expect(await s.getSourceRepo("slack:C9")).toBeNull();
  });

  it("open-swe settings identity / source-repo", async () => {
    const store = new SettingsStore(testRedis(), uniquePrefix());
    const out: string[] = [];
    await runSettingsCli(["identity", "set", "linear:abc-123", "dana"], store, (l) => out.push(l));
    await runSettingsCli(["source-repo", "set", "linear:team-1", "octo/hello"], store, (l) => out.push(l));
    await runSettingsCli(["identity", "list"], store, (l) => out.push(l));
    await runSettingsCli(["source-repo", "list"], store, (l) => out.push(l));
    expect(out.map((l) => JSON.parse(l))).toEqual([
      { user: "linear:abc-123", login: "dana" },
      { where: "linear:team-1", repo: "octo/hello" },
      { "linear:abc-123": "dana" },
      { "linear:team-1": "octo/hello" },
    ]);
    await expect(runSettingsCli(["identity", "set", "slack:U1"], store, () => undefined)).rejects.toThrow(UsageError);
    await expect(runSettingsCli(["identity", "set", "nope", "dana"], store, () => undefined)).rejects.toThrow(/source:id/);
  });
});
