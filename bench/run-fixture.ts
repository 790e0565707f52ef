import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";

/** `<root>/octo/hello.git`: a bare repository with one commit, for GIT_REMOTE_TEMPLATE=file://<root>/{owner}/{repo}.git. */
export function makeRemote(root: string): void {
  const bare = join(root, "octo", "hello.git");
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", bare]);
  const seed = mkdtempSync(join(tmpdir(), "open-swe-bench-seed-"));
  const g = (...a: string[]) => execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@e", ...a], { cwd: seed });
  g("init", "-q", "-b", "main");
  writeFileSync(join(seed, "README.md"), "# bench\n");
  g("add", "-A");
  g("commit", "-qm", "init");
  g("push", "-q", bare, "main");
  rmSync(seed, { recursive: true, force: true });
}

/** The GitHub API a run on octo/hello calls (network off but loopback); the caller adds the reactions it wants to see. */
export function mockRunGitHub(): nock.Scope {
  nock.disableNetConnect();
  nock.enableNetConnect((h) => h.startsWith("127.0.0.1"));
  const api = nock("https://api.github.com").persist();
  api.post(/\/app\/installations\/\d+\/access_tokens/).reply(201, { token: "ghs_bench", expires_at: new Date(Date.now() + 3600_000).toISOString() });
  api.get(/\/collaborators\/.*\/permission/).reply(200, { permission: "write", role_name: "write" });
  api.get(/\/contents\//).reply(404, {});
  api.get("/repos/octo/hello").reply(200, { default_branch: "main" });
  api.post(/\/issues\/\d+\/comments$/).reply(201, { id: 1 });
  api.patch(/\/issues\/comments\/\d+$/).reply(200, { id: 1 });
  return api;
}
