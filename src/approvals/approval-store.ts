import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { keyer } from "../store/keys.js";
import { ApprovalResolution, PendingApproval } from "../threads/approvals.js";

// Marks the approval decided (first writer wins) and forgets the thread's pending pointer if it is still this one.
const RESOLVE = `
if redis.call("exists", KEYS[1]) == 0 then return -1 end
if redis.call("set", KEYS[2], ARGV[1], "NX", "PX", ARGV[2]) == false then return 0 end
if redis.call("get", KEYS[3]) == ARGV[3] then redis.call("del", KEYS[3]) end
redis.call("zrem", KEYS[4], ARGV[3])
return 1`;

/**
 * Pending approvals in Redis: one record per approval, one pointer per thread (a paused thread takes no
 * new run until it is decided), and a decided marker set once, by whichever of a person or the timeout
 * comes first.
 */
export class ApprovalStore {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    /** How long records outlive their timeout, for late `approve`s to get a clear answer. */
    private readonly ttlMs: number,
  ) {
    this.key = keyer(`${prefix}:approval`);
  }

  /**
   * A job pauses at most once (it ends there), so its approval's id follows from the job's: a retried
   * job that paused again re-posts the same approval instead of leaving an orphan whose timeout would
   * later deny the call under the new one.
   */
  static idFor(jobId: string): string {
    return createHash("sha256").update(`approval:${jobId}`).digest("hex").slice(0, 8);
  }

  async create(a: PendingApproval): Promise<void> {
    const value = JSON.stringify(PendingApproval.parse(a));
    await this.redis.multi().set(this.key("req", a.id), value, "PX", this.ttlMs).set(this.key("thread", a.threadId), a.id, "PX", this.ttlMs).zadd(this.key("pending"), a.requestedAt, a.id).exec();
  }

  /** Undecided approvals, oldest first; ids whose record expired are dropped from the index as they are met. */
  async listPending(limit = 200): Promise<PendingApproval[]> {
    const ids = await this.redis.zrange(this.key("pending"), "0", String(limit - 1));
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(...ids.map((id) => this.key("req", id)));
    const gone = ids.filter((_, i) => !raws[i]);
    if (gone.length > 0) await this.redis.zrem(this.key("pending"), ...gone);
    return raws.flatMap((raw) => (raw ? [PendingApproval.parse(JSON.parse(raw))] : []));
  }

  async get(id: string): Promise<PendingApproval | null> {
    const raw = await this.redis.get(this.key("req", id));
    return raw ? PendingApproval.parse(JSON.parse(raw)) : null;
  }

  /** The approval a thread is paused on, if any. */
  async pendingFor(threadId: string): Promise<string | null> {
    return this.redis.get(this.key("thread", threadId));
  }

  async resolution(id: string): Promise<ApprovalResolution | null> {
    const raw = await this.redis.get(this.key("decided", id));
    return raw ? ApprovalResolution.parse(JSON.parse(raw)) : null;
  }

  /** "unknown": no such approval (or expired); "decided": someone was first; "resolved": this call decided it. */
  async resolve(
    a: PendingApproval,
    r: Omit<ApprovalResolution, "latencyMs" | "resolvedAt">,
    now = Date.now(),
  ): Promise<{ result: "unknown" | "decided" } | { result: "resolved"; resolution: ApprovalResolution }> {
    const resolution = ApprovalResolution.parse({ ...r, resolvedAt: now, latencyMs: Math.max(0, now - a.requestedAt) });
    const out = await this.redis.eval(
      RESOLVE,
      4,
      this.key("req", a.id),
      this.key("decided", a.id),
      this.key("thread", a.threadId),
      this.key("pending"),
      JSON.stringify(resolution),
      String(this.ttlMs),
      a.id,
    );
    if (out === -1) return { result: "unknown" };
    if (out === 0) return { result: "decided" };
    return { result: "resolved", resolution };
  }
}
