import { tool, type ClientTool } from "@langchain/core/tools";
import { z } from "zod";
import { errorMessage } from "../errors.js";
import { NewFinding, Severity } from "./findings.js";
import type { ReviewSession } from "./review-session.js";

const UpdateFindingArgs = z.object({
  id: z.string().describe("the id add_finding returned"),
  severity: Severity.optional(),
  title: z.string().min(1).max(200).optional(),
  body: z.string().min(1).optional(),
  suggestion: z.string().optional(),
  withdraw: z.boolean().optional().describe("true to drop the finding from this review"),
});

const PublishReviewArgs = z.object({
  summary: z.string().min(1).describe("two to five sentences: what changed and what matters; no repetition of the inline findings"),
  verdict: z.enum(["approve", "request_changes"]).nullable().default(null).describe("only when the person who asked for this review asked for a verdict; otherwise leave null"),
});

/**
 * The reviewer's write surface: findings and one published review. No tool here can push, comment
 * elsewhere or approve outside `publish_review`, which decides whether a verdict is authorized.
 */
export function createReviewerTools(session: ReviewSession): ClientTool[] {
  const addFinding = tool(
    async (args) => {
      const r = session.fileFinding(args);
      return r.accepted ? `accepted as ${r.id}` : `rejected: ${r.reason}`;
    },
    {
      name: "add_finding",
      description: "File one finding: a concrete failure on a line this pull request changed. Anchor it to the added (RIGHT) or removed (LEFT) line.",
      schema: NewFinding,
    },
  );

  const updateFinding = tool(
    async ({ id, ...patch }) => {
      try {
        const f = session.updateFinding(id, patch);
        return f === null ? `withdrew ${id}` : `updated ${id}`;
      } catch (err) {
        return `error: ${errorMessage(err)}`;
      }
    },
    { name: "update_finding", description: "Change or withdraw a finding filed in this review.", schema: UpdateFindingArgs },
  );

  const listFindings = tool(
    async () => {
      const rows = session.listFindings().map((f) => ({
        id: f.id,
        status: f.status,
        new: f.isNew,
        severity: f.severity,
        belowFloor: f.belowFloor,
        where: `${f.path}:${f.line} (${f.side})`,
        rule: f.rule,
        title: f.title,
      }));
      return rows.length === 0 ? "no findings yet" : JSON.stringify(rows, null, 1);
    },
    { name: "list_findings", description: "List this PR's findings: earlier passes' (open, resolved, dismissed) and this review's new ones.", schema: z.object({}) },
  );

  const publish = tool(
    async ({ summary, verdict }) => {
      try {
        const r = await session.publish({ summary, verdict });
        const what = r.action === "created" ? `posted a ${r.event} review with ${r.commentsPosted} inline comment(s)` : "updated the previous summary (nothing new to post)";
        return `published: ${what}${r.warnings.length > 0 ? `; warnings: ${r.warnings.join("; ")}` : ""}. The review is done.`;
      } catch (err) {
        return `error: ${errorMessage(err)}`;
      }
    },
    { name: "publish_review", description: "Publish this review once, at the end: one review with the new findings as inline comments and a short summary.", schema: PublishReviewArgs },
  );

  return [addFinding, updateFinding, listFindings, publish];
}
