export type RequestedVerdict = "approve" | "request_changes";
export type ReviewEvent = "APPROVE" | "REQUEST_CHANGES" | "COMMENT";

export interface VerdictInput {
  /** What the reviewer asked `publish_review` for. */
  requested: RequestedVerdict | null;
  /** True only when the job was dispatched by an explicit human request for a verdict from a writer. */
  verdictAuthorized: boolean;
  prAuthor: string;
  /** Our app's bot login(s) and the configured internal bot logins. */
  botLogins: readonly string[];
  /** Open findings at or above the severity floor exist (an approval would contradict them). */
  hasBlockingFindings: boolean;
  /** This pass surfaced new ones (what makes a standing approval stale); defaults to `hasBlockingFindings`. */
  hasNewFindings?: boolean | undefined;
  /** Our earlier APPROVE on this PR, if it still stands. */
  previousApprovalReviewId?: number | null | undefined;
}

export interface VerdictDecision {
  event: ReviewEvent;
  /** Why a requested verdict was not given; goes into the review summary. */
  note?: string;
  dismissReviewId?: number;
}

function normalizeLogin(login: string): string {
  return login.toLowerCase().replace(/\[bot\]$/, "");
}

export function isSelfReview(prAuthor: string, botLogins: readonly string[]): boolean {
  const author = normalizeLogin(prAuthor);
  return botLogins.some((b) => normalizeLogin(b) === author);
}

/** Pure: which review event to post, and whether a stale approval of ours must be dismissed. */
export function decideVerdict(input: VerdictInput): VerdictDecision {
  const { event, note } = chooseEvent(input);
  const stale = input.previousApprovalReviewId ?? undefined;
  const dismiss = stale !== undefined && (input.hasNewFindings ?? input.hasBlockingFindings) && event !== "APPROVE";
  return { event, ...(note !== undefined ? { note } : {}), ...(dismiss ? { dismissReviewId: stale } : {}) };
}

function chooseEvent(input: VerdictInput): { event: ReviewEvent; note?: string } {
  const { requested } = input;
  if (requested === null) return { event: "COMMENT" };
  const label = requested === "approve" ? "an approval" : "a request for changes";
  if (!input.verdictAuthorized) {
    return { event: "COMMENT", note: `This review asked for ${label}, but a verdict was not authorized: verdicts are given only when someone with write access explicitly asks for one.` };
  }
  if (isSelfReview(input.prAuthor, input.botLogins)) {
    return { event: "COMMENT", note: `Not giving ${label}: this pull request was opened by a bot of ours, and we do not review our own work with a verdict.` };
  }
  if (requested === "approve" && input.hasBlockingFindings) {
    return { event: "COMMENT", note: "Not approving: this pass found open issues that need attention first." };
  }
  return { event: requested === "approve" ? "APPROVE" : "REQUEST_CHANGES" };
}
