import { describe, expect, it } from "vitest";
import { createGitHubAuth } from "../../src/github/app-auth.js";
import { createLogger } from "../../src/logger.js";
import { checkRequest, checkResponse } from "../contracts/github-openapi.js";

/**
 * `npm run test:live` only: the app's real credentials against a repository it is installed on
 * (OPEN_SWE_LIVE_GITHUB_REPO=owner/name). Reads only; each answer is held to the same OpenAPI
 * description the mocks are, so a description that no longer matches GitHub shows up here first.
 */
const [owner = "", repo = ""] = (process.env.OPEN_SWE_LIVE_GITHUB_REPO ?? "").split("/");

describe("live: GitHub through the app's installation", () => {
  it("finds the installation, mints a token, reads the repository and its permission answer as described", async () => {
    const auth = createGitHubAuth(
      { appId: process.env.APP_ID ?? "", privateKey: (process.env.PRIVATE_KEY ?? "").replace(/\\n/g, "\n"), webhookSecret: "live-check-unused" },
      { log: createLogger("warn", "live") },
    );
    const installation = await auth.repoInstallation(owner, repo);
    expect(installation, `the app is not installed on ${owner}/${repo}`).not.toBeNull();
    const octokit = await auth.installation(installation ?? 0);
    const got = await octokit.request("GET /repos/{owner}/{repo}", { owner, repo });
    const { operation } = checkRequest("GET", `/repos/${owner}/${repo}`, undefined);
    expect(checkResponse(operation!, got.status, got.data)).toEqual([]);
    expect(typeof got.data.default_branch).toBe("string");
  });
});
