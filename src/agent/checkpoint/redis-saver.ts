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
import { CheckpointKeys, blobField } from "./checkpoint-keys.js";
import { ITEM_SEP, ItemCodec } from "./item-codec.js";
import { putCheckpoint, putCheckpointWrites } from "./checkpoint-scripts.js";
import { KnownItems } from "./known-items.js";
import { joinLists, splitLists, type LoadList, type StoreList } from "./split-lists.js";
import { WrittenRefs, type RefSpace } from "./written-refs.js";

export interface RedisSaverOptions {
  redis: Redis;
  /** Every key starts with `${prefix}:`; tests and tenants isolate by prefix. */
  prefix: string;
  serde?: SerializerProtocol;
  /** When set, every key of a thread expires this long after the thread's last write. */
  ttlSeconds?: number;
  /**
   * When set, a put that leaves more than twice this many checkpoints in a thread's namespace prunes it
   * to the latest `keepCheckpoints` (with their writes, and the channel values and items they reference).
   * Resume needs only the latest checkpoint and its writes; unset keeps the whole history (time travel).
   */
  keepCheckpoints?: number;
}

interface StoredWrite {
  taskId: string;
  idx: number;
  channel: string;
  type: string;
  value: string; // base64 of the serde bytes
  taskPath: string;
  items?: string[]; // item hashes the value refers to (see StoredBlob)
}

interface StoredBlob {
  type: string;
  value: string; // base64 of the serde bytes; "" for EMPTY
  /** Item hashes the value refers to: each split list in `value` is a `[start, count]` slice of these. */
  items?: string[];
}

const EMPTY = "__empty__";
const INDEX_REFRESH_MS = 60_000;

/**
 * A LangGraph checkpoint saver on plain Redis 7 commands (hashes, sets, a lex-ordered sorted set):
 * no RedisJSON or RediSearch needed.
 *
 * Keys: see `checkpoint-keys.ts`.
 *
 * With `ttlSeconds`, every put refreshes the TTL of the thread's keys it touches (the latest checkpoint,
 * the blob, item, id and namespace keys), so a thread lives `ttlSeconds` past its last write; a running or
 * paused run writes at every step, which is enough while the TTL (days) dwarfs a run (minutes).
 */
export class RedisSaver extends BaseCheckpointSaver {
  readonly #redis: Redis;
  readonly #keys: CheckpointKeys;
  readonly #ttlSeconds: number | undefined;
  readonly #keep: number | undefined;
  readonly #codec: ItemCodec;
  readonly #known = new KnownItems();
  /** Kept only when pruning: what each checkpoint this process put refers to (see `#prune`). */
  readonly #written = new WrittenRefs();
  /**
   * When this process last moved each thread up the thread index: a put refreshes it at most once per
   * INDEX_REFRESH_MS (a round trip fewer on every other put; the index's precision is far below the TTL's).
   */
  readonly #indexedAt = new Map<string, number>();

  constructor(options: RedisSaverOptions) {
    super(options.serde);
    this.#redis = options.redis;
    this.#keys = new CheckpointKeys(options.prefix);
    this.#codec = new ItemCodec(this.serde);
    this.#ttlSeconds = options.ttlSeconds;
    this.#keep = options.keepCheckpoints;
    if (this.#keep !== undefined && !(Number.isInteger(this.#keep) && this.#keep >= 1)) {
      throw new OpenSweError("checkpoint_invalid", `keepCheckpoints must be a positive integer, got ${this.#keep}`);
    }
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const thread = config.configurable?.["thread_id"] as string | undefined;
    if (thread === undefined) return undefined;
    const ns = (config.configurable?.["checkpoint_ns"] as string | undefined) ?? "";
    this.#known.delete(this.#keys.items(thread, ns));
    this.#written.delete(this.#keys.items(thread, ns));
    let id: string | undefined = getCheckpointId(config) || undefined;
    if (!id) {
      const latest = await this.#redis.zrevrangebylex(this.#keys.ids(thread, ns), "+", "-", "LIMIT", 0, 1);
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
    const threads = wantThread !== undefined ? [wantThread] : (await this.#redis.zrange(this.#keys.threads(), "0", "-1")).sort();
    for (const thread of threads) {
      const namespaces = wantNs !== undefined ? [wantNs] : (await this.#redis.smembers(this.#keys.ns(thread))).sort();
      for (const ns of namespaces) {
        const max = beforeId ? `(${beforeId}` : "+";
        const ids = await this.#redis.zrevrangebylex(this.#keys.ids(thread, ns), max, "-");
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

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const thread = config.configurable?.["thread_id"] as string | undefined;
    if (thread === undefined) throw new OpenSweError("checkpoint_invalid", "cannot put a checkpoint without configurable.thread_id");
    const ns = (config.configurable?.["checkpoint_ns"] as string | undefined) ?? "";
    const parent = config.configurable?.["checkpoint_id"] as string | undefined;
    const { channel_values: values, ...rest } = copyCheckpoint(checkpoint);
    const [[cpType, cpBytes], [mdType, mdBytes]] = await Promise.all([this.serde.dumpsTyped({ ...rest, channel_values: {} }), this.serde.dumpsTyped(metadata)]);
    const itemsKey = this.#keys.items(thread, ns);
    const newItems: Record<string, Buffer> = {};
    const blobs = new Map<string, StoredBlob>();
    for (const [channel, version] of Object.entries(newVersions)) {
      blobs.set(
        blobField(channel, version),
        Object.prototype.hasOwnProperty.call(values, channel) ? await this.#dump(itemsKey, (values as Record<string, unknown>)[channel], newItems) : { type: EMPTY, value: "" },
      );
    }
    // The channel values this checkpoint refers to, readable without deserialising it (prune reads them).
    const refs = Object.entries(checkpoint.channel_versions).map(([channel, version]) => blobField(channel, version));
    const fields: Array<string | Buffer> = ["checkpoint", Buffer.from(cpBytes), "checkpointType", cpType, "metadata", Buffer.from(mdBytes), "metadataType", mdType, "refs", JSON.stringify(refs)];
    if (parent) fields.push("parent", parent);
    const items = Object.entries(newItems);
    const count = Number(
      await putCheckpoint(
        this.#redis,
        5,
        itemsKey,
        this.#keys.blobs(thread, ns),
        this.#keys.ns(thread),
        this.#keys.ids(thread, ns),
        this.#keys.cp(thread, ns, checkpoint.id),
        String(this.#ttlSeconds ?? 0),
        ns,
        checkpoint.id,
        String(items.length),
        String(blobs.size),
        ...items.flat(),
        ...[...blobs].flatMap(([field, blob]) => [field, JSON.stringify(blob)]),
        ...fields,
      ),
    );
    this.#known.remember(itemsKey, newItems);
    if (this.#keep !== undefined) {
      const space = this.#written.space(itemsKey);
      space.checkpoints.set(checkpoint.id, { fields: refs, writeItems: new Set() });
      for (const [field, blob] of blobs) space.blobItems.set(field, blob.items ?? []);
      if (count > 2 * this.#keep) await this.#prune(thread, ns, this.#keep);
    }
    await this.#index(thread);
    return { configurable: { thread_id: thread, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  /** The index of all threads lives outside the thread's slot; it only serves list() without a thread id. */
  async #index(thread: string): Promise<void> {
    const now = Date.now();
    const last = this.#indexedAt.get(thread);
    if (last !== undefined && now - last < INDEX_REFRESH_MS) return;
    this.#indexedAt.delete(thread);
    if (this.#indexedAt.size >= 1024) this.#indexedAt.delete(this.#indexedAt.keys().next().value!);
    const index = this.#redis.multi().zadd(this.#keys.threads(), now, thread);
    if (this.#ttlSeconds !== undefined) index.zremrangebyscore(this.#keys.threads(), "-inf", `(${now - this.#ttlSeconds * 1000}`);
    await index.exec();
    this.#indexedAt.set(thread, now);
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const thread = config.configurable?.["thread_id"] as string | undefined;
    const ns = (config.configurable?.["checkpoint_ns"] as string | undefined) ?? "";
    const id = config.configurable?.["checkpoint_id"] as string | undefined;
    if (thread === undefined || !id) {
      throw new OpenSweError("checkpoint_invalid", "cannot put writes without configurable.thread_id and checkpoint_id");
    }
    const key = this.#keys.writes(thread, ns, id);
    const itemsKey = this.#keys.items(thread, ns);
    const newItems: Record<string, Buffer> = {};
    const stored: [string, number, StoredWrite][] = [];
    for (const [i, [channel, value]] of writes.entries()) {
      const idx = WRITES_IDX_MAP[channel] ?? i;
      stored.push([`${taskId}\u0000${idx}`, idx, { taskId, idx, channel, ...(await this.#dump(itemsKey, value, newItems)), taskPath: taskPath ?? "" }]);
    }
    const items = Object.entries(newItems);
    // What this process knows a checkpoint refers to must include these before they land (prune reads it).
    if (this.#keep !== undefined) {
      const refs = this.#written.peek(itemsKey)?.checkpoints.get(id);
      for (const [, , write] of stored) for (const hash of write.items ?? []) refs?.writeItems.add(hash);
    }
    await putCheckpointWrites(
      this.#redis,
      2,
      itemsKey,
      key,
      String(this.#ttlSeconds ?? 0),
      String(items.length),
      ...items.flat(),
      // Regular writes are first-writer-wins (a retried task must not change history); special ones (errors, interrupts) overwrite.
      ...stored.flatMap(([field, idx, write]) => [idx >= 0 ? "nx" : "set", field, JSON.stringify(write)]),
    );
    this.#known.remember(itemsKey, newItems);
  }

  /** The thread's checkpoint namespaces: "" is the graph's own, `tools:<id>` a subagent's (a `task` call's). */
  async namespaces(threadId: string): Promise<string[]> {
    return (await this.#redis.smembers(this.#keys.ns(threadId))).sort();
  }

  async deleteThread(threadId: string): Promise<void> {
    const namespaces = await this.#redis.smembers(this.#keys.ns(threadId));
    const keys: string[] = [this.#keys.ns(threadId)];
    for (const ns of namespaces) {
      const ids = await this.#redis.zrange(this.#keys.ids(threadId, ns), "0", "-1");
      keys.push(this.#keys.ids(threadId, ns), this.#keys.blobs(threadId, ns), this.#keys.items(threadId, ns));
      this.#known.delete(this.#keys.items(threadId, ns));
      this.#written.delete(this.#keys.items(threadId, ns));
      for (const id of ids) keys.push(this.#keys.cp(threadId, ns, id), this.#keys.writes(threadId, ns, id));
    }
    const multi = this.#redis.multi();
    for (let i = 0; i < keys.length; i += 500) multi.del(...keys.slice(i, i + 500));
    await multi.exec();
    await this.#redis.zrem(this.#keys.threads(), threadId);
    this.#indexedAt.delete(threadId);
  }

  /** Serialises a value with its object lists split into items; new items land in `newItems`. */
  async #dump(itemsKey: string, value: unknown, newItems: Record<string, Buffer>): Promise<StoredBlob> {
    const known = this.#known.of(itemsKey);
    const items: string[] = [];
    const store: StoreList = async (list, depth) => {
      const hashes: string[] = [];
      for (const element of list) {
        const { stored, hash } = this.#codec.cached(element) ?? (await this.#codec.encode(element, depth > 0 ? (e) => splitLists(e, store, depth - 1) : async (e) => e));
        hashes.push(hash);
        if (!known.has(hash)) newItems[hash] = stored;
      }
      const start = items.length;
      items.push(...hashes);
      return [start, hashes.length];
    };
    const split = await splitLists(value, store);
    const [type, bytes] = await this.serde.dumpsTyped(split);
    return { type, value: Buffer.from(bytes).toString("base64"), ...(items.length > 0 ? { items } : {}) };
  }

  async #load(thread: string, ns: string, stored: StoredBlob): Promise<unknown> {
    const value = await this.serde.loadsTyped(stored.type, Buffer.from(stored.value, "base64"));
    const items = stored.items;
    if (!items) return value;
    const load: LoadList = async (ref, depth) => {
      const [start, count] = Array.isArray(ref) ? (ref as unknown[]) : [];
      if (typeof start !== "number" || typeof count !== "number" || start < 0 || start + count > items.length) {
        throw new OpenSweError("checkpoint_invalid", `checkpoint of thread ${thread} has a malformed list reference`);
      }
      const elements = await this.#loadItems(thread, ns, items.slice(start, start + count));
      return depth > 0 ? Promise.all(elements.map((e) => joinLists(e, load, depth - 1))) : elements;
    };
    return joinLists(value, load);
  }

  /**
   * Drops all but the latest `keep` checkpoints of a namespace, then the values and items nothing kept
   * references. It runs every `keep + 1` puts of a long thread. What each checkpoint, value and write refers
   * to comes from what this process wrote (`WrittenRefs`); only what it did not write (an earlier run's, or
   * another process's) is read back, in one pipelined round trip, and remembered for the next prune.
   */
  async #prune(thread: string, ns: string, keep: number): Promise<void> {
    const idsKey = this.#keys.ids(thread, ns);
    const ids = await this.#redis.zrange(idsKey, "0", "-1");
    const dropped = ids.slice(0, Math.max(0, ids.length - keep));
    if (dropped.length === 0) return;
    const kept = ids.slice(dropped.length);
    const blobsKey = this.#keys.blobs(thread, ns);
    const itemsKey = this.#keys.items(thread, ns);
    const space = this.#written.space(itemsKey);
    await this.#readRefs(thread, ns, space, ids);
    const refsOf = (id: string) => space.checkpoints.get(id) ?? { fields: [], writeItems: new Set<string>() };
    // Only what a dropped checkpoint referenced and no kept one does goes.
    const keptFields = new Set(kept.flatMap((id) => refsOf(id).fields));
    const stale = [...new Set(dropped.flatMap((id) => refsOf(id).fields))].filter((f) => !keptFields.has(f));
    const unread = [...keptFields, ...stale].filter((f) => !space.blobItems.has(f));
    if (unread.length > 0) {
      const blobs = await this.#redis.hmget(blobsKey, ...unread);
      for (const [i, field] of unread.entries()) {
        const stored = blobs[i];
        space.blobItems.set(field, stored ? ((JSON.parse(stored) as StoredBlob).items ?? []) : []);
      }
    }
    const itemsOf = (fields: Iterable<string>, ofIds: string[]): Set<string> => {
      const out = new Set<string>();
      for (const field of fields) for (const h of space.blobItems.get(field) ?? []) out.add(h);
      for (const id of ofIds) for (const h of refsOf(id).writeItems) out.add(h);
      return out;
    };
    const live = itemsOf(keptFields, kept);
    const staleItems = [...itemsOf(stale, dropped)].filter((h) => !live.has(h));
    this.#known.forget(itemsKey, staleItems);
    for (const id of dropped) space.checkpoints.delete(id);
    for (const field of stale) space.blobItems.delete(field);
    const multi = this.#redis.multi();
    multi.zrem(idsKey, ...dropped);
    for (let i = 0; i < dropped.length; i += 250) {
      multi.del(...dropped.slice(i, i + 250).flatMap((id) => [this.#keys.cp(thread, ns, id), this.#keys.writes(thread, ns, id)]));
    }
    if (stale.length > 0) multi.hdel(blobsKey, ...stale);
    if (staleItems.length > 0) multi.hdel(itemsKey, ...staleItems);
    await multi.exec();
  }

  /**
   * Reads what `space` does not hold of the checkpoints `ids`: each one's channel values (its `refs`, or the
   * checkpoint itself when it was stored before refs were) and the items its writes refer to.
   */
  async #readRefs(thread: string, ns: string, space: RefSpace, ids: string[]): Promise<void> {
    const unknown = ids.filter((id) => !space.checkpoints.has(id));
    if (unknown.length === 0) return;
    const reads = this.#redis.pipeline();
    for (const id of unknown) reads.hmgetBuffer(this.#keys.cp(thread, ns, id), "refs", "checkpoint", "checkpointType");
    for (const id of unknown) reads.hvals(this.#keys.writes(thread, ns, id));
    const replies = (await reads.exec()) ?? [];
    const reply = <T>(i: number): T => {
      const [err, value] = replies[i] ?? [new Error("no reply")];
      if (err) throw err;
      return value as T;
    };
    for (const [i, id] of unknown.entries()) {
      const [refs, cpBytes, cpType] = reply<(Buffer | null)[]>(i);
      let fields: string[] = [];
      if (refs) {
        fields = JSON.parse(refs.toString()) as string[];
      } else if (cpBytes && cpType) {
        const cp = (await this.serde.loadsTyped(cpType.toString(), cpBytes)) as Checkpoint;
        fields = Object.entries(cp.channel_versions).map(([channel, version]) => blobField(channel, version));
      }
      const writeItems = new Set(reply<string[]>(unknown.length + i).flatMap((w) => (JSON.parse(w) as StoredWrite).items ?? []));
      // A checkpoint this process put meanwhile is known better than what was just read.
      if (!space.checkpoints.has(id)) space.checkpoints.set(id, { fields, writeItems });
    }
  }

  async #loadTuple(thread: string, ns: string, id: string): Promise<CheckpointTuple | undefined> {
    const raw = await this.#redis.hgetallBuffer(this.#keys.cp(thread, ns, id));
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
    const raw = await this.#redis.hmget(this.#keys.blobs(thread, ns), ...entries.map(([ch, v]) => blobField(ch, v)));
    const values: Record<string, unknown> = {};
    for (const [i, [channel]] of entries.entries()) {
      const stored = raw[i];
      if (!stored) continue;
      const blob = JSON.parse(stored) as StoredBlob;
      if (blob.type === EMPTY) continue;
      values[channel] = await this.#load(thread, ns, blob);
    }
    return values;
  }

  async #loadItems(thread: string, ns: string, hashes: string[]): Promise<unknown[]> {
    if (hashes.length === 0) return [];
    const itemsKey = this.#keys.items(thread, ns);
    const raw = await this.#redis.hmgetBuffer(itemsKey, ...hashes);
    const elements = await Promise.all(
      raw.map(async (stored, i) => {
        const at = stored?.indexOf(ITEM_SEP) ?? -1;
        if (!stored || at < 0) throw new OpenSweError("checkpoint_invalid", `checkpoint of thread ${thread} references a missing list item ${hashes[i]}`);
        const element: unknown = await this.serde.loadsTyped(stored.subarray(0, at).toString(), stored.subarray(at + 1));
        this.#codec.remember(element, { stored, hash: hashes[i]! });
        return element;
      }),
    );
    // Just read, so stored: the next put need not write them again.
    const known = this.#known.of(itemsKey);
    for (const hash of hashes) known.add(hash);
    return elements;
  }

  async #storedWrites(thread: string, ns: string, id: string): Promise<StoredWrite[]> {
    const raw = await this.#redis.hvals(this.#keys.writes(thread, ns, id));
    const writes = raw.map((r) => JSON.parse(r) as StoredWrite);
    writes.sort((a, b) => compareWritesSortKeys(writesSortKey(a.taskPath, a.taskId, a.idx), writesSortKey(b.taskPath, b.taskId, b.idx)));
    return writes;
  }

  async #loadWrites(thread: string, ns: string, id: string): Promise<CheckpointPendingWrite[]> {
    const writes = await this.#storedWrites(thread, ns, id);
    return Promise.all(writes.map(async (w): Promise<CheckpointPendingWrite> => [w.taskId, w.channel, await this.#load(thread, ns, w)]));
  }

  /** Checkpoints older than format v4 kept pending sends as writes on the parent; lift them into channel_values. */
  async #migratePendingSends(checkpoint: Checkpoint, thread: string, ns: string, parent: string): Promise<void> {
    const sends = (await this.#storedWrites(thread, ns, parent)).filter((w) => w.channel === TASKS);
    const values = await Promise.all(sends.map((w) => this.#load(thread, ns, w)));
    const mutable = checkpoint as { channel_values: Record<string, unknown>; channel_versions: Record<string, string | number> };
    mutable.channel_values ??= {};
    mutable.channel_values[TASKS] = values;
    mutable.channel_versions ??= {};
    const versions = Object.values(mutable.channel_versions);
    mutable.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }
}
