import { describe, expect, it } from "vitest";
import { runSettingsCli, UsageError } from "../../src/store/settings-cli.js";
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

    expect(await s.getProfile("alice")).toEqual({ autoFixCi: false, autoReview: true });
    await s.setProfile("Alice", { autoFixCi: true, model: "claude-sonnet-4-5" });
    expect(await s.getProfile("alice")).toEqual({ autoFixCi: true, autoReview: true, model: "claude-sonnet-4-5" });

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

  it("a profile set changes only the keys it names", async () => {
    const store = new SettingsStore(testRedis(), uniquePrefix());
    await run(store, "profile", "set", "alice", "autoFixCi=true", "autoReview=false", "model=claude-sonnet-4-6");
    expect(await run(store, "profile", "set", "alice", "effort=high")).toEqual({ autoFixCi: true, autoReview: false, model: "claude-sonnet-4-6", effort: "high" });
    expect(await store.getProfile("alice")).toEqual({ autoFixCi: true, autoReview: false, model: "claude-sonnet-4-6", effort: "high" });
    // The store's own API is a patch too.
    expect(await store.setProfile("alice", { model: "claude-y" })).toEqual({ autoFixCi: true, autoReview: false, model: "claude-y", effort: "high" });
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
