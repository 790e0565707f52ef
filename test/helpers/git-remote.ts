import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@e", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@e" } });

/** A bare repository standing in for GitHub's git, with one commit on `main`; returns the URL template. */
export function makeBareRemote(
  owner: string,
  repo: string,
  files: Record<string, string> = { "README.md": "# hello\n" },
): { root: string; template: string; bare: string; git: (...args: string[]) => string } {
  const root = mkdtempSync(join(tmpdir(), "open-swe-remote-"));
  const bare = join(root, owner, `${repo}.git`);
  mkdirSync(bare, { recursive: true });
  git(bare, "init", "-q", "--bare", "-b", "main");
  const work = mkdtempSync(join(tmpdir(), "open-swe-seed-"));
  git(work, "init", "-q", "-b", "main");
  for (const [path, content] of Object.entries(files)) writeFileSync(join(work, path), content);
  git(work, "add", "-A");
  git(work, "commit", "-q", "-m", "initial");
  git(work, "push", "-q", bare, "main");
  return { root, bare, template: `file://${root}/{owner}/{repo}.git`, git: (...args) => git(bare, ...args) };
}
