import type { ProbotOctokit } from "probot";

/** GitHub access as the app: built by `src/github/app-auth.ts`, handed to every room that calls GitHub. */
export interface GitHubAuth {
  /** An Octokit acting as the app itself (JWT): `/app/installations`. */
  app(): Promise<ProbotOctokit>;
  /** An Octokit acting as the installation (short-lived token, minted on demand, cached by Probot). */
  installation(installationId: number): Promise<ProbotOctokit>;
  /** A token for one repository only: what host-side git pushes use. Never handed to a sandbox. */
  repoScopedToken(installationId: number, repo: string): Promise<string>;
  /** The installation that covers `owner/repo`, or null when the app is not installed on it (app JWT). */
  repoInstallation(owner: string, repo: string): Promise<number | null>;
}
