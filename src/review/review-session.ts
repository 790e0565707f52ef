import type { ProbotOctokit } from "probot";
import { OpenSweError } from "../errors.js";
import type { UnreviewedFile } from "./budget.js";
import type { PullDiff } from "./diff.js";
import { meetsFloor, type Finding, type NewFinding, type PullRef, type Severity } from "./findings.js";
import type { FindingsStore } from "./findings-store.js";
import { publishReview, type PublishReviewResult } from "./publish.js";
import { reconcileFindings, type FileLines, type ReconcileResult } from "./reconcile-findings.js";
import { decideVerdict, type RequestedVerdict } from "./verdict-decision.js";

export class ReviewSessionError extends OpenSweError<"already_published" | "finding_not_found" | "finding_not_editable"> {}

export interface ReviewSessionOptions {
  octokit: ProbotOctokit;
  pr: PullRef;
  headSha: string;
  prAuthor: string;
  /** The PR's full diff at `headSha` (every file, reviewed or not) for anchoring. */
  diff: PullDiff;
  /** The stored set, after `applyHumanResolutions`. */
  previous: readonly Finding[];
  store: FindingsStore;
  verdictAuthorized: boolean;
  botLogins: readonly string[];
  severityFloor: Severity;
  unreviewedFiles: readonly UnreviewedFile[];
  /** Full file texts, where a finding's neighbours are read (absent: anchoring falls back to distance). */
  files?: FileLines;
}

export type FileResult = { accepted: true; id: string } | { accepted: false; reason: string };

export interface FindingPatch {
  severity?: Severity | undefined;
  title?: string | undefined;
  body?: string | undefined;
  suggestion?: string | undefined;
  withdraw?: boolean | undefined;
}

/**
 * One review pass over one PR head: the state behind the reviewer's add/update/list/publish tools.
 * Findings are checked against the diff as they are filed, so the model hears why one is rejected.
 */
export class ReviewSession {
  private readonly filed: NewFinding[] = [];
  private result: PublishReviewResult | null = null;

  constructor(private readonly o: ReviewSessionOptions) {}

  get published(): PublishReviewResult | null {
    return this.result;
  }

  private reconcile(filed: readonly NewFinding[] = this.filed): ReconcileResult {
    return reconcileFindings({ previous: this.o.previous, diff: this.o.diff, headSha: this.o.headSha, filed, ...(this.o.files ? { files: this.o.files } : {}) });
  }

  fileFinding(finding: NewFinding): FileResult {
    const attempt = this.reconcile([...this.filed, finding]);
    const rejected = attempt.rejected.find((r) => r.filed === finding);
    if (rejected) return { accepted: false, reason: rejected.reason };
    this.filed.push(finding);
    return { accepted: true, id: attempt.added.at(-1)!.id };
  }

  updateFinding(id: string, patch: FindingPatch): Finding | null {
    const current = this.reconcile();
    const index = current.added.findIndex((f) => f.id === id);
    if (index === -1) {
      const known = current.findings.some((f) => f.id === id);
      throw new ReviewSessionError(
        known ? "finding_not_editable" : "finding_not_found",
        known ? `finding ${id} was posted in an earlier pass; it resolves itself when the code is fixed` : `no finding ${id} in this review`,
      );
    }
    const accepted = this.filed.filter((n) => !current.rejected.some((r) => r.filed === n));
    const target = accepted[index]!;
    const at = this.filed.indexOf(target);
    if (patch.withdraw) {
      this.filed.splice(at, 1);
      return null;
    }
    const { withdraw: _ignored, ...rest } = patch;
    const next: NewFinding = { ...target, ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) };
    this.filed[at] = next;
    // The fingerprint (path, code, rule) is untouched by these fields, so the id stays the same.
    return this.reconcile().added.find((f) => f.id === id) ?? null;
  }

  /** The PR's findings as the next publish would leave them. */
  listFindings(): Array<Finding & { isNew: boolean; belowFloor: boolean }> {
    const r = this.reconcile();
    const added = new Set(r.added.map((f) => f.id));
    return r.findings.map((f) => ({ ...f, isNew: added.has(f.id), belowFloor: !meetsFloor(f.severity, this.o.severityFloor) }));
  }

  async publish(args: { summary: string; verdict: RequestedVerdict | null }): Promise<PublishReviewResult> {
    if (this.result) throw new ReviewSessionError("already_published", "this review pass was already published; a pass publishes exactly once");
    const r = this.reconcile();
    const state = await this.o.store.getState(this.o.pr);
    const verdict = decideVerdict({
      requested: args.verdict,
      verdictAuthorized: this.o.verdictAuthorized,
      prAuthor: this.o.prAuthor,
      botLogins: this.o.botLogins,
      hasBlockingFindings: r.findings.some((f) => f.status === "open" && meetsFloor(f.severity, this.o.severityFloor)),
      hasNewFindings: r.added.some((f) => meetsFloor(f.severity, this.o.severityFloor)),
      previousApprovalReviewId: state.approvalReviewId,
    });
    this.result = await publishReview({
      octokit: this.o.octokit,
      ...this.o.pr,
      headSha: this.o.headSha,
      findings: r.findings,
      summary: args.summary,
      verdict,
      unreviewedFiles: this.o.unreviewedFiles,
      severityFloor: this.o.severityFloor,
      store: this.o.store,
    });
    return this.result;
  }
}
