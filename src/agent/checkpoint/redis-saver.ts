import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  copyCheckpoint,
  getCheckpointId,
  maxChannelVersion,
  writesSortKey,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import type { Redis } from "ioredis";
import { OpenSweError } from "../../errors.js";

export interface RedisSaverOptions {
  redis: Redis;
  /** Every key starts with `${prefix}:`; tests and tenants isolate by prefix. */
  prefix: string;
  serde?: SerializerProtocol;
  /** When set, every key of a thread expires this long after the thread's last write. */
  ttlSeconds?: number;
}

interface StoredWrite {
  taskId: string;
  idx: number;
  channel: string;
  type: string;
  value: string; // base64 of the serde bytes
  taskPath: string;
}

interface StoredBlob {
  type: string;
  value: string; // base64 of the serde bytes
}

const EMPTY = "__empty__";

/**
 * A LangGraph checkpoint saver on plain Redis 7 commands (hashes, sets, a lex-ordered sorted set):
 * no RedisJSON or RediSearch needed.
 *
 * Keys, with `t` = thread id and `n` = namespace (both URI-encoded; `{t}` is the cluster hash tag):
 * - `p:threads` set of thread ids; `p:{t}:ns` set of namespaces of a thread
 * - `p:{t}:ids:n` sorted set (all scores 0) of checkpoint ids — uuid6 ids sort by time lexically
 * - `p:{t}:cp:n:id` hash: checkpoint without channel_values, metadata (serde bytes + type), parent id
 * - `p:{t}:blob:n` hash of channel values, field `channel\0version`: only channels in `newVersions` are
 *   written on put, so an unchanged message list is not stored again on every step
 * - `p:{t}:w:n:id` hash of pending writes, field `taskId\0idx`
 */
export class RedisSaver extends BaseCheckpointSaver {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #ttlSeconds: number | undefined;

  constructor(options: RedisSaverOptions) {
    super(options.serde);
    this.#redis = options.redis;
    this.#prefix = options.prefix;
    this.#ttlSeconds = options.ttlSeconds;
  }

  // The thread id is the hash tag, so one thread's keys share a cluster slot and MULTI stays legal on Redis Cluster.
  #key(kind: string, thread: string, ...rest: string[]): string {
    return [this.#prefix, `{${encodeURIComponent(thread)}}`, kind, ...rest.map((p) => encodeURIComponent(p))].join(":");
  }
  #threadsKey(): string {
    return `${this.#prefix}:threads`;
  }
  #nsKey(thread: string): string {
    return this.#key("ns", thread);
  }
  #idsKey(thread: string, ns: string): string {
    return this.#key("ids", thread, ns);
  }
  #cpKey(thread: string, ns: string, id: string): string {
    return this.#key("cp", thread, ns, id);
  }
  #writesKey(thread: string, ns: string, id: string): string {
    return this.#key("w", thread, ns, id);
  }
  #blobsKey(thread: string, ns: string): string {
    return this.#key("blob", thread, ns);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const thread = config.configurable?.["thread_id"] as string | undefined;
    if (thread === undefined) return undefined;
    const ns = (config.configurable?.["checkpoint_ns"] as string | undefined) ?? "";
    let id: string | undefined = getCheckpointId(config) || undefined;
    if (!id) {
      const latest = await this.#redis.zrevrangebylex(this.#idsKey(thread, ns), "+", "-", "LIMIT", 0, 1);
      id = latest[0];
      if (!id) return undefined;
    }
    return this.#loadTuple(thread, ns, id);
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const { before, filter } = options ?? {};
    let limit = options?.limit;
    const wantThread = config.configurable?.["thread_id"] as string | undefined;
    const wantNs = config.configurable?.["checkpoint_ns"] as string | undefined;
    const wantId = config.configurable?.["checkpoint_id"] as string | undefined;
    const beforeId = before?.configurable?.["checkpoint_id"] as string | undefined;
    const threads = wantThread !== undefined ? [wantThread] : (await this.#redis.smembers(this.#threadsKey())).sort();
    for (const thread of threads) {
      const namespaces = wantNs !== undefined ? [wantNs] : (await this.#redis.smembers(this.#nsKey(thread))).sort();
      for (const ns of namespaces) {
        const max = beforeId ? `(${beforeId}` : "+";
        const ids = await this.#redis.zrevrangebylex(this.#idsKey(thread, ns), max, "-");
        for (const id of ids) {
          if (wantId && id !== wantId) continue;
          if (limit !== undefined && limit <= 0) return;
          const tuple = await this.#loadTuple(thread, ns, id);
          if (!tuple) continue;
          if (filter && !Object.entries(filter).every(([k, v]) => (tuple.metadata as Record<string, unknown> | undefined)?.[k] === v)) continue;
          if (limit !== undefined) limit -= 1;
          yield tuple;
        }
      }
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const thread = config.configurable?.["thread_id"] as string | undefined;
    if (thread === undefined) throw new OpenSweError("checkpoint_invalid", "cannot put a checkpoint without configurable.thread_id");
    const ns = (config.configurable?.["checkpoint_ns"] as string | undefined) ?? "";
    const parent = config.configurable?.["checkpoint_id"] as string | undefined;
    const { channel_values: values, ...rest } = copyCheckpoint(checkpoint);
    const [[cpType, cpBytes], [mdType, mdBytes]] = await Promise.all([
      this.serde.dumpsTyped({ ...rest, channel_values: {} }),
      this.serde.dumpsTyped(metadata),
    ]);
    const blobs: Record<string, string> = {};
    for (const [channel, version] of Object.entries(newVersions)) {
      const blob: StoredBlob = { type: EMPTY, value: "" };
      if (Object.prototype.hasOwnProperty.call(values, channel)) {
        const [type, bytes] = await this.serde.dumpsTyped((values as Record<string, unknown>)[channel]);
        blob.type = type;
        blob.value = Buffer.from(bytes).toString("base64");
      }
      blobs[`${channel}\u0000${version}`] = JSON.stringify(blob);
    }
    const fields: Record<string, string | Buffer> = {
      checkpoint: Buffer.from(cpBytes),
      checkpointType: cpType,
      metadata: Buffer.from(mdBytes),
      metadataType: mdType,
    };
    if (parent) fields["parent"] = parent;
    const cpKey = this.#cpKey(thread, ns, checkpoint.id);
    const multi = this.#redis.multi();
    if (Object.keys(blobs).length > 0) multi.hset(this.#blobsKey(thread, ns), blobs);
    multi.sadd(this.#nsKey(thread), ns).zadd(this.#idsKey(thread, ns), 0, checkpoint.id).del(cpKey).hset(cpKey, fields);
    this.#expire(multi, this.#nsKey(thread), this.#idsKey(thread, ns), this.#blobsKey(thread, ns), cpKey);
    await multi.exec();
    // The index of all threads lives outside the thread's slot; it only serves list() without a thread id.
    await this.#redis.sadd(this.#threadsKey(), thread);
    return { configurable: { thread_id: thread, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const thread = config.configurable?.["thread_id"] as string | undefined;
    const ns = (config.configurable?.["checkpoint_ns"] as string | undefined) ?? "";
    const id = config.configurable?.["checkpoint_id"] as string | undefined;
    if (thread === undefined || !id) {
      throw new OpenSweError("checkpoint_invalid", "cannot put writes without configurable.thread_id and checkpoint_id");
    }
    const key = this.#writesKey(thread, ns, id);
    const multi = this.#redis.multi();
    for (const [i, [channel, value]] of writes.entries()) {
      const idx = WRITES_IDX_MAP[channel] ?? i;
      const [type, bytes] = await this.serde.dumpsTyped(value);
      const stored: StoredWrite = { taskId, idx, channel, type, value: Buffer.from(bytes).toString("base64"), taskPath: taskPath ?? "" };
      const field = `${taskId}\u0000${idx}`;
      // Regular writes are first-writer-wins (a retried task must not change history); special ones (errors, interrupts) overwrite.
      if (idx >= 0) multi.hsetnx(key, field, JSON.stringify(stored));
      else multi.hset(key, field, JSON.stringify(stored));
    }
    this.#expire(multi, key);
    await multi.exec();
  }

  async deleteThread(threadId: string): Promise<void> {
    const namespaces = await this.#redis.smembers(this.#nsKey(threadId));
    const keys: string[] = [this.#nsKey(threadId)];
    for (const ns of namespaces) {
      const ids = await this.#redis.zrange(this.#idsKey(threadId, ns), "0", "-1");
      keys.push(this.#idsKey(threadId, ns), this.#blobsKey(threadId, ns));
      for (const id of ids) keys.push(this.#cpKey(threadId, ns, id), this.#writesKey(threadId, ns, id));
    }
    const multi = this.#redis.multi();
    for (let i = 0; i < keys.length; i += 500) multi.del(...keys.slice(i, i + 500));
    await multi.exec();
    await this.#redis.srem(this.#threadsKey(), threadId);
  }

  #expire(multi: ReturnType<Redis["multi"]>, ...keys: string[]): void {
    if (this.#ttlSeconds === undefined) return;
    for (const key of keys) multi.expire(key, this.#ttlSeconds);
  }

  async #loadTuple(thread: string, ns: string, id: string): Promise<CheckpointTuple | undefined> {
    const raw = await this.#redis.hgetallBuffer(this.#cpKey(thread, ns, id));
    const cpBytes = raw["checkpoint"];
    const mdBytes = raw["metadata"];
    if (!cpBytes || !mdBytes) return undefined;
    const checkpoint = (await this.serde.loadsTyped(String(raw["checkpointType"]), cpBytes)) as Checkpoint;
    checkpoint.channel_values = await this.#loadValues(thread, ns, checkpoint.channel_versions);
    const metadata = (await this.serde.loadsTyped(String(raw["metadataType"]), mdBytes)) as CheckpointMetadata;
    const parent = raw["parent"]?.toString();
    if (checkpoint.v < 4 && parent !== undefined) await this.#migratePendingSends(checkpoint, thread, ns, parent);
    const tuple: CheckpointTuple = {
      config: { configurable: { thread_id: thread, checkpoint_ns: ns, checkpoint_id: id } },
      checkpoint,
      metadata,
      pendingWrites: await this.#loadWrites(thread, ns, id),
    };
    if (parent !== undefined) tuple.parentConfig = { configurable: { thread_id: thread, checkpoint_ns: ns, checkpoint_id: parent } };
    return tuple;
  }

  async #loadValues(thread: string, ns: string, versions: ChannelVersions): Promise<Record<string, unknown>> {
    const entries = Object.entries(versions);
    if (entries.length === 0) return {};
    const raw = await this.#redis.hmget(this.#blobsKey(thread, ns), ...entries.map(([ch, v]) => `${ch}\u0000${v}`));
    const values: Record<string, unknown> = {};
    for (const [i, [channel]] of entries.entries()) {
      const stored = raw[i];
      if (!stored) continue;
      const blob = JSON.parse(stored) as StoredBlob;
      if (blob.type === EMPTY) continue;
      values[channel] = await this.serde.loadsTyped(blob.type, Buffer.from(blob.value, "base64"));
    }
    return values;
  }

  async #storedWrites(thread: string, ns: string, id: string): Promise<StoredWrite[]> {
    const raw = await this.#redis.hvals(this.#writesKey(thread, ns, id));
    const writes = raw.map((r) => JSON.parse(r) as StoredWrite);
    writes.sort((a, b) => compareWritesSortKeys(writesSortKey(a.taskPath, a.taskId, a.idx), writesSortKey(b.taskPath, b.taskId, b.idx)));
    return writes;
  }

  async #loadWrites(thread: string, ns: string, id: string): Promise<CheckpointPendingWrite[]> {
    const writes = await this.#storedWrites(thread, ns, id);
    return Promise.all(
      writes.map(async (w): Promise<CheckpointPendingWrite> => [w.taskId, w.channel, await this.serde.loadsTyped(w.type, Buffer.from(w.value, "base64"))]),
    );
  }

  /** Checkpoints older than format v4 kept pending sends as writes on the parent; lift them into channel_values. */
  async #migratePendingSends(checkpoint: Checkpoint, thread: string, ns: string, parent: string): Promise<void> {
    const sends = (await this.#storedWrites(thread, ns, parent)).filter((w) => w.channel === TASKS);
    const values = await Promise.all(sends.map((w) => this.serde.loadsTyped(w.type, Buffer.from(w.value, "base64"))));
    const mutable = checkpoint as { channel_values: Record<string, unknown>; channel_versions: Record<string, string | number> };
    mutable.channel_values ??= {};
    mutable.channel_values[TASKS] = values;
    mutable.channel_versions ??= {};
    const versions = Object.values(mutable.channel_versions);
    mutable.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }
}
