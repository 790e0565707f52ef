import { v5 as uuidv5 } from "uuid";

/** Fixed namespace: changing it would orphan every existing thread. */
export const THREAD_NAMESPACE = "5f0c6a52-8a1e-4c1b-9a57-3f1f5e7d2b10";

export type ThreadKey =
  | { kind: "pr"; owner: string; repo: string; number: number }
  | { kind: "reviewer"; owner: string; repo: string; number: number }
  | { kind: "issue"; issueId: number }
  | { kind: "raw"; key: string };

/** The human-readable key a thread id is derived from; owner/repo are case-insensitive on GitHub. */
export function threadKey(key: ThreadKey): string {
  switch (key.kind) {
    case "pr":
      return `github:${key.owner.toLowerCase()}/${key.repo.toLowerCase()}#${key.number}`;
    case "reviewer":
      return `github:${key.owner.toLowerCase()}/${key.repo.toLowerCase()}#${key.number}/reviewer`;
    case "issue":
      return `github-issue:${key.issueId}`;
    case "raw":
      return key.key;
  }
}

export function threadId(key: ThreadKey): string {
  return uuidv5(threadKey(key), THREAD_NAMESPACE);
}

/** `owner/repo#n`, lower-cased: the key for per-PR state such as the autofix toggle. */
export function prRef(owner: string, repo: string, number: number): string {
  return `${owner.toLowerCase()}/${repo.toLowerCase()}#${number}`;
}
