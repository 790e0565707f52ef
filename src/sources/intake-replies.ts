import type { SourceName } from "./source.js";

/** What the worker answers on a source when it starts nothing (pure: table-tested, and the conformance suite matches them). */
export const INTAKE_REPLIES = {
  unmapped: (source: SourceName, userId: string) =>
    `I don't know who you are on GitHub yet, so I have not started anything. An operator can link you with \`open-swe settings identity set ${source}:${userId} <github-login>\`.`,
  notWriter: (login: string, repo: string) => `Thanks @${login}. Only people with write access to ${repo} can ask me to act on it, so I have not started anything.`,
  askRepo: () => "Which repository should I work in? Say it in your message as `repo:owner/name` (or paste its GitHub URL), and mention me again.",
  notInstalled: (repo: string) => `I am not installed on ${repo} (or it does not exist), so I have not started anything. Name a repository I am installed on with \`repo:owner/name\`.`,
  githubUnreachable: () => "I could not reach GitHub to check that you can write to that repository, so I have not started anything. Please ask again in a few minutes.",
  newThread: (from: string, to: string) =>
    `This conversation was about ${from}; I started a new thread for ${to} (its own workspace, branch and history: the earlier messages stay with ${from}). Mention me without a repository to keep working on ${to}.`,
} as const;
