import { createHash } from "node:crypto";

/** Fixed namespace: changing it would orphan every existing thread. */
export const THREAD_NAMESPACE = "5f0c6a52-8a1e-4c1b-9a57-3f1f5e7d2b10";

export type ThreadKey =
  | { kind: "pr"; owner: string; repo: string; number: number }
  | { kind: "reviewer"; owner: string; repo: string; number: number }
  | { kind: "issue"; issueId: number }
  /** A source conversation (Slack thread, Linear issue, …) about one repository: a thread belongs to one repository. */
  | { kind: "source"; key: string; repo: string }
  /** The conversation key alone: source threads from before they were per repository (and their migration). */
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
    case "source":
      return `${key.key}#repo:${key.repo.toLowerCase()}`;
    case "raw":
      return key.key;
  }
}

const NAMESPACE_BYTES = Buffer.from(THREAD_NAMESPACE.replace(/-/g, ""), "hex");

/** RFC 4122 version-5 UUID (SHA-1 of namespace + name); node's SHA-1 keeps it off the webhook hot path. */
export function uuidV5(name: string, namespace: Buffer = NAMESPACE_BYTES): string {
  const hash = createHash("sha1").update(namespace).update(name, "utf8").digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.toString("hex", 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

const cache = new Map<string, string>();
const CACHE_MAX = 10_000;

/** Memoised: webhooks for the same PR or issue arrive again and again. */
export function threadId(key: ThreadKey): string {
  const name = threadKey(key);
  let id = cache.get(name);
  if (id === undefined) {
    id = uuidV5(name);
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(name, id);
  }
  return id;
}

/** `owner/repo#n`, lower-cased: the key for per-PR state such as the autofix toggle. */
export function prRef(owner: string, repo: string, number: number): string {
  return `${owner.toLowerCase()}/${repo.toLowerCase()}#${number}`;
}
