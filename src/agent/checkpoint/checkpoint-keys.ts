/**
 * The Redis keys of `RedisSaver`, with `t` = thread id and `n` = namespace (both URI-encoded; `{t}` is the
 * cluster hash tag, so one thread's keys share a slot and MULTI stays legal on Redis Cluster):
 * - `p:threads:by-time` sorted set of thread ids by last put (ms), trimmed past the TTL; `p:{t}:ns` set of
 *   namespaces of a thread
 * - `p:{t}:ids:n` sorted set (all scores 0) of checkpoint ids — uuid6 ids sort by time lexically
 * - `p:{t}:cp:n:id` hash: checkpoint without channel_values, metadata (serde bytes + type), parent id
 * - `p:{t}:blob:n` hash of channel values, field `channel\0version`: only channels in `newVersions` are
 *   written on put, so an unchanged message list is not stored again on every step
 * - `p:{t}:item:n` hash of list elements by content (sha256/128 of type + serde bytes → `type\0bytes`): a list
 *   of objects (the message history) in a channel value or a write is stored as the hashes of its elements
 *   (`split-lists.ts`), so a step that appends two messages writes those two and a list of hashes, not the
 *   whole history again — nor in the writes, where langchain's agent puts the whole state at every tool step
 * - `p:{t}:w:n:id` hash of pending writes, field `taskId\0idx`
 */
/** The field of a channel value at a version in the thread namespace's blob hash. */
export const blobField = (channel: string, version: string | number): string => `${channel}\u0000${version}`;

export class CheckpointKeys {
  readonly #prefix: string;

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  #key(kind: string, thread: string, ...rest: string[]): string {
    return [this.#prefix, `{${encodeURIComponent(thread)}}`, kind, ...rest.map((p) => encodeURIComponent(p))].join(":");
  }
  threads(): string {
    return `${this.#prefix}:threads:by-time`;
  }
  ns(thread: string): string {
    return this.#key("ns", thread);
  }
  ids(thread: string, ns: string): string {
    return this.#key("ids", thread, ns);
  }
  cp(thread: string, ns: string, id: string): string {
    return this.#key("cp", thread, ns, id);
  }
  writes(thread: string, ns: string, id: string): string {
    return this.#key("w", thread, ns, id);
  }
  blobs(thread: string, ns: string): string {
    return this.#key("blob", thread, ns);
  }
  items(thread: string, ns: string): string {
    return this.#key("item", thread, ns);
  }
}
