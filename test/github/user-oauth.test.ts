import nock from "nock";
import { describe, expect, it } from "vitest";
import { fetchUser, OAuthError, writableInInstallation } from "../../src/github/user-oauth.js";

const API = "https://api.github.com";
const client = { clientId: "Iv1.test", clientSecret: "secret", webBase: "https://github.com", apiBase: API };
const TOKEN = "ghu_dana_token";
const PATH = "/user/installations/4242/repositories";

/** One page of the installation's repositories as GitHub answers the user: numbered repos, every third read-only. */
function page(n: number, last: number, perPage = 100) {
  const repositories = Array.from({ length: perPage }, (_, i) => {
    const k = (n - 1) * perPage + i + 1;
    return { full_name: `Octo/Repo-${k}`, permissions: { push: k % 3 !== 0, pull: true, admin: false } };
  });
  const link = [
    ...(n < last ? [`<${API}${PATH}?per_page=${perPage}&page=${n + 1}>; rel="next"`, `<${API}${PATH}?per_page=${perPage}&page=${last}>; rel="last"`] : []),
    ...(n > 1 ? [`<${API}${PATH}?per_page=${perPage}&page=1>; rel="first"`] : []),
  ].join(", ");
  return { body: { total_count: last * perPage, repositories }, headers: link ? { link } : {} };
}

describe("the dashboard's GitHub reads as the signed-in user (Octokit, every page)", () => {
  it("a user of an installation with 1,200 repositories reaches repo #1,150: all 12 pages are read", async () => {
    for (let n = 1; n <= 12; n++) {
      const { body, headers } = page(n, 12);
      nock(API)
        .get(PATH)
        .query({ per_page: "100", page: String(n) })
        .matchHeader("authorization", `token ${TOKEN}`)
        .reply(200, body, headers);
    }
    const repos = await writableInInstallation(client, TOKEN, 4242);
    expect(repos).toContain("octo/repo-1150");
    expect(repos).toContain("octo/repo-1198");
    expect(repos).not.toContain("octo/repo-1149"); // read-only to this user
    expect(repos).toHaveLength(800);
  });

  it("an installation the user cannot see (404) gives no repositories", async () => {
    nock(API).get(PATH).query({ per_page: "100", page: "1" }).reply(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
    expect(await writableInInstallation(client, TOKEN, 4242)).toEqual([]);
  });

  it("another refusal is an OAuthError naming the status", async () => {
    nock(API).get(PATH).query({ per_page: "100", page: "1" }).reply(401, { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" });
    await expect(writableInInstallation(client, TOKEN, 4242)).rejects.toThrow(OAuthError);
  });

  it("fetchUser reads who signed in", async () => {
    nock(API).get("/user").matchHeader("authorization", `token ${TOKEN}`).reply(200, { login: "dana", id: 7 });
    expect(await fetchUser(client, TOKEN)).toEqual({ login: "dana", id: 7 });
  });
});
