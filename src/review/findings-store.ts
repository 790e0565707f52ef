import type { Redis } from "ioredis";
import { z } from "zod";
import { OpenSweError } from "../errors.js";
import type { RunInsights } from "../store/run-insights.js";
import { findingTransitions, type FindingWas } from "./finding-transitions.js";
import { Finding, pullKey, type PullRef } from "./findings.js";

/** What we remember about our own published reviews on a PR, between passes. */
export const ReviewState = z.object({
  headSha: z.string().optional(),
  /** Our latest review carrying the summary; a pass with nothing new edits its body. */
  summaryReviewId: z.number().int().optional(),
  /** Our standing APPROVE, dismissed when a later pass finds something new. */
  approvalReviewId: z.number().int().optional(),
});
export type ReviewState = z.infer<typeof ReviewState>;

export class FindingsStoreError extends OpenSweError<"findings_corrupt" | "finding_not_found"> {}

/**
 * One evolving findings set per PR in Redis: a hash `<prefix>review:findings:{owner/repo#n}` of
 * id → JSON, plus a small state hash. Every read is parsed with zod.
 */
export class FindingsStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string = "",
    /** Where raised / fixed / dismissed findings are counted per day; null: not counted (tests, the CLI). */
    private readonly insights: RunInsights | null = null,
  ) {}

  private findingsKey(pr: PullRef): string {
    return `${this.prefix}review:findings:{${pullKey(pr)}}`;
  }

  private stateKey(pr: PullRef): string {
    return `${this.prefix}review:state:{${pullKey(pr)}}`;
  }

  async list(pr: PullRef): Promise<Finding[]> {
    const raw = await this.redis.hgetall(this.findingsKey(pr));
    return Object.entries(raw)
      .map(([id, json]) => parseFinding(id, json))
      .sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.id.localeCompare(b.id));
  }

  async get(pr: PullRef, id: string): Promise<Finding | null> {
    const json = await this.redis.hget(this.findingsKey(pr), id);
    return json === null ? null : parseFinding(id, json);
  }

  /** Replaces the whole set atomically (the result of a reconcile), with what it changed counted for Insights. */
  async replaceAll(pr: PullRef, findings: readonly Finding[]): Promise<void> {
    const key = this.findingsKey(pr);
    const before = this.insights ? await this.statuses(key) : null;
    const multi = this.redis.multi().del(key);
    if (findings.length > 0) multi.hset(key, Object.fromEntries(findings.map((f) => [f.id, JSON.stringify(Finding.parse(f))])));
    if (this.insights && before) this.insights.countFindings(multi, `${pr.owner}/${pr.repo}`, Date.now(), findingTransitions(before, findings));
    await multi.exec();
  }

  /** The stored findings' statuses by id; one that does not parse is left out (it is replaced anyway). */
  private async statuses(key: string): Promise<Map<string, FindingWas>> {
    const out = new Map<string, FindingWas>();
    for (const [id, json] of Object.entries(await this.redis.hgetall(key))) {
      const parsed = Finding.pick({ status: true, closedBy: true }).safeParse(safeJson(json));
      if (parsed.success) out.set(id, parsed.data);
    }
    return out;
  }

  async put(pr: PullRef, finding: Finding): Promise<void> {
    await this.redis.hset(this.findingsKey(pr), finding.id, JSON.stringify(Finding.parse(finding)));
  }

  async update(pr: PullRef, id: string, patch: Partial<Omit<Finding, "id">>): Promise<Finding> {
    const current = await this.get(pr, id);
    if (!current) throw new FindingsStoreError("finding_not_found", `no finding ${id} on ${pullKey(pr)}`);
    const next = Finding.parse({ ...current, ...patch });
    await this.put(pr, next);
    return next;
  }

  async getState(pr: PullRef): Promise<ReviewState> {
    const raw = await this.redis.hgetall(this.stateKey(pr));
    const parsed = ReviewState.safeParse({
      ...(raw["headSha"] !== undefined ? { headSha: raw["headSha"] } : {}),
      ...(raw["summaryReviewId"] !== undefined ? { summaryReviewId: Number(raw["summaryReviewId"]) } : {}),
      ...(raw["approvalReviewId"] !== undefined ? { approvalReviewId: Number(raw["approvalReviewId"]) } : {}),
    });
    if (!parsed.success) throw new FindingsStoreError("findings_corrupt", `review state of ${pullKey(pr)} is corrupt`, { cause: parsed.error });
    return parsed.data;
  }

  /** Sets the given fields; a field passed as null is removed. */
  async setState(pr: PullRef, patch: { [K in keyof ReviewState]?: ReviewState[K] | null }): Promise<void> {
    const key = this.stateKey(pr);
    const multi = this.redis.multi();
    for (const [field, value] of Object.entries(patch)) {
      if (value === null) multi.hdel(key, field);
      else if (value !== undefined) multi.hset(key, field, String(value));
    }
    await multi.exec();
  }

  /** Every PR of a repo that has a findings set (for the continual style analyzer). */
  async listPulls(owner: string, repo: string): Promise<PullRef[]> {
    const head = `${this.prefix}review:findings:{${owner}/${repo}#`;
    const numbers = new Set<number>();
    let cursor = "0";
    do {
      const [next, keys] = await this.redis.scan(cursor, "MATCH", `${head}*}`, "COUNT", 500);
      cursor = next;
      for (const k of keys) {
        const n = Number(k.slice(head.length, -1));
        if (Number.isInteger(n) && n > 0) numbers.add(n);
      }
    } while (cursor !== "0");
    return [...numbers].sort((a, b) => a - b).map((pull_number) => ({ owner, repo, pull_number }));
  }

  async clear(pr: PullRef): Promise<void> {
    await this.redis.del(this.findingsKey(pr), this.stateKey(pr));
  }
}

function safeJson(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

function parseFinding(id: string, json: string): Finding {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (cause) {
    throw new FindingsStoreError("findings_corrupt", `finding ${id} is not JSON`, { cause });
  }
  const parsed = Finding.safeParse(data);
  if (!parsed.success) throw new FindingsStoreError("findings_corrupt", `finding ${id} does not match the schema`, { cause: parsed.error });
  return parsed.data;
}
