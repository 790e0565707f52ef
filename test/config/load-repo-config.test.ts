import nock from "nock";
import { ProbotOctokit } from "probot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRepoConfig } from "../../src/config/repo-config.js";

const API = "https://api.github.com";
const REPO_FILE = "/repos/octo/hello/contents/.github%2Fopen-swe.yml";
const ORG_FILE = "/repos/octo/.github/contents/.github%2Fopen-swe.yml";
const octokit = () => new ProbotOctokit({ auth: { token: "t" }, retry: { enabled: false }, throttle: { enabled: false } });

describe("loadRepoConfig", () => {
  beforeEach(() => nock.disableNetConnect());
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("asks for the owner's .github copy while the repository's own read is still out", async () => {
    const order: string[] = [];
    let orgAsked!: () => void;
    const orgSeen = new Promise<void>((r) => (orgAsked = r));
    // The repository's answer waits for the owner's request to arrive (or gives up): one after the other, it never would.
    nock(API)
      .get(REPO_FILE)
      .reply(async () => {
        await Promise.race([orgSeen, new Promise((r) => setTimeout(r, 5_000))]);
        order.push("repo answered");
        return [404, {}];
      });
    nock(API)
      .get(ORG_FILE)
      .reply(() => {
        order.push("org asked");
        orgAsked();
        return [200, "agent:\n  network: false\n"];
      });
    const config = await loadRepoConfig(octokit(), "octo", "hello");
    expect(order).toEqual(["org asked", "repo answered"]);
    expect(config.agent.network).toBe(false);
  });

  it("uses the repository's own file, whatever happened to the owner's read", async () => {
    nock(API).get(REPO_FILE).reply(200, "model: claude-sonnet-4-5\n");
    nock(API).get(ORG_FILE).reply(500, { message: "boom" });
    expect((await loadRepoConfig(octokit(), "octo", "hello")).model).toBe("claude-sonnet-4-5");
  });

  it("fails with GitHub's status when the repository has no file and the owner's read fails", async () => {
    nock(API).get(REPO_FILE).reply(404, {});
    nock(API).get(ORG_FILE).reply(500, { message: "boom" });
    await expect(loadRepoConfig(octokit(), "octo", "hello")).rejects.toMatchObject({ status: 500 });
  });

  it("still follows _extends from the repository's file", async () => {
    nock(API).get(REPO_FILE).reply(200, "_extends: shared\nfooter: off\n");
    nock(API).get(ORG_FILE).reply(404, {});
    nock(API).get("/repos/octo/shared/contents/.github%2Fopen-swe.yml").reply(200, "agent:\n  network: false\nfooter: all\n");
    const config = await loadRepoConfig(octokit(), "octo", "hello");
    expect(config).toMatchObject({ footer: "off", agent: { network: false } });
  });

  it("reads the .github repository's own file once", async () => {
    nock(API).get(ORG_FILE).reply(200, "footer: all\n");
    expect((await loadRepoConfig(octokit(), "octo", ".github")).footer).toBe("all");
    expect(nock.isDone()).toBe(true);
  });
});
