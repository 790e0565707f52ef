import type { Redis } from "ioredis";
import { keyer } from "../store/keys.js";
import { threadId } from "../shared/thread-id.js";

const TTL_SECONDS = 90 * 86_400;

/**
 * The thread a source message joins: one per conversation *and* repository (pure). A conversation
 * from before threads were per repository kept its thread id (uuid of the conversation key alone);
 * that thread stays the one of the repository it had recorded (`legacyRepo`), every other repository
 * gets its own.
 */
export function sourceThreadId(conversationKey: string, repo: string, legacyRepo: string | null): string {
  const r = repo.toLowerCase();
  if (legacyRepo !== null && legacyRepo.toLowerCase() === r) return threadId({ kind: "raw", key: conversationKey });
  return threadId({ kind: "source", key: conversationKey, repo: r });
}

export interface PlacedThread {
  threadId: string;
  /** The thread had no record before this message: its own sandbox, branch, checkpoint and follow-ups start here. */
  created: boolean;
  /** The repository the conversation was about before this message (null: its first). */
  previousRepo: string | null;
}

/**
 * Source threads in Redis: the repository each thread belongs to (`thread:<id>:repo`, written once per
 * thread) and the repository a conversation was last about (`conversation:<key>:repo`: a later mention
 * needs not name it again).
 */
export class ThreadRepos {
  private readonly thread: (...p: (string | number)[]) => string;
  private readonly conversation: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.thread = keyer(`${prefix}:thread`);
    this.conversation = keyer(`${prefix}:conversation`);
  }

  /** The repository a thread belongs to. */
  get(threadId: string): Promise<string | null> {
    return this.redis.get(this.thread(threadId, "repo"));
  }

  /** The repository the conversation was last about; for a conversation from before the upgrade, its thread's. */
  async conversationRepo(conversationKey: string): Promise<string | null> {
    const [current, legacy] = await this.redis.mget(this.conversation(conversationKey, "repo"), this.legacyKey(conversationKey));
    return current ?? legacy ?? null;
  }

  /**
   * The thread of this conversation for `repo`, recorded: its repository is set once (NX) and never
   * changes; a conversation from before the upgrade keeps its thread for the repository it had then.
   */
  async place(conversationKey: string, repo: string): Promise<PlacedThread> {
    const r = repo.toLowerCase();
    const convKey = this.conversation(conversationKey, "repo");
    const legacy = await this.redis.get(this.legacyKey(conversationKey));
    const id = sourceThreadId(conversationKey, r, legacy);
    const repoKey = this.thread(id, "repo");
    const [[, setNx], , [, prev]] = (await this.redis.multi().set(repoKey, r, "EX", TTL_SECONDS, "NX").expire(repoKey, TTL_SECONDS).set(convKey, r, "EX", TTL_SECONDS, "GET").exec()) as [
      [unknown, string | null],
      [unknown, number],
      [unknown, string | null],
    ];
    return { threadId: id, created: setNx === "OK", previousRepo: prev ?? legacy };
  }

  private legacyKey(conversationKey: string): string {
    return this.thread(threadId({ kind: "raw", key: conversationKey }), "repo");
  }
}
