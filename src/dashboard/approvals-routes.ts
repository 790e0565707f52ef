import { refuseUnlessWriter, repoRightNow } from "./repo-rights.js";
import type { Hono } from "hono";
import type { AgentJob } from "../queue/schemas.js";
import type { DashboardDeps, DashboardEnv } from "./dashboard-deps.js";
import type { Session } from "./session-store.js";
import { approvalsPage } from "./views/approvals-page.js";
import { messagePage } from "./views/layout.js";

/** Pure: may this viewer see and decide an approval here? Only for a repo they can write, of the same installation. */
export function approvalInScope(session: Pick<Session, "repos" | "installations">, job: Pick<AgentJob, "owner" | "repo" | "installationId">): boolean {
  const repo = `${job.owner}/${job.repo}`.toLowerCase();
  return session.repos.includes(repo) && session.installations[repo] === job.installationId;
}

const MAX_REASON_CHARS = 500;

export function mountApprovals(app: Hono<DashboardEnv>, deps: DashboardDeps): void {
  const store = deps.approvals;
  const back = { href: "/app/approvals", label: "Approvals" };

  app.get("/app/approvals", async (c) => {
    const session = c.get("session");
    const pending = (await store.listPending()).filter((a) => approvalInScope(session, a.job));
    return c.html(approvalsPage(session, pending));
  });

  app.post("/app/approvals/:id/:decision{approve|deny}", async (c) => {
    const session = c.get("session");
    const approvalId = c.req.param("id");
    const decision = c.req.param("decision") === "approve" ? "approve" : "deny";
    const reasonField = (await c.req.parseBody())["reason"];
    const reason = typeof reasonField === "string" ? reasonField.trim() : "";
    if (reason.length > MAX_REASON_CHARS) return c.html(messagePage("Nothing decided", session, `Give a reason of at most ${MAX_REASON_CHARS} characters.`, back), 400);
    // The dashboard decides only in repositories the viewer can write now (asked of GitHub, not the sign-in snapshot).
    const pending = await store.get(approvalId);
    if (pending && approvalInScope(session, pending.job)) {
      const refused = await refuseUnlessWriter(c, deps, session, `${pending.job.owner}/${pending.job.repo}`.toLowerCase(), `${approvalId} was not decided`);
      if (refused) return refused;
    }
    const d = await deps.approvals.decide({
      approvalId,
      login: session.login,
      decision,
      reason: reason || undefined,
      inScope: (job) => approvalInScope(session, job),
      canWrite: async (job) => (await repoRightNow(deps, session.login, `${job.owner}/${job.repo}`.toLowerCase(), job.installationId)) === "write",
      via: "dashboard",
    });
    if (d.result === "unknown") return c.html(messagePage("Approval not found", session, `There is no approval request ${approvalId} in the repositories you can write to.`, back), 404);
    if (d.result === "refused") return c.html(messagePage("Refused", session, `Only @${d.approval.job.requester.login} or someone with write access can decide ${d.approval.id}.`, back), 403);
    if (d.result === "already_decided") return c.html(messagePage("Already decided", session, `${d.approval.id} was already ${d.prior}.`, back), 409);
    deps.log.info({ approvalId: d.approval.id, login: session.login, decision: d.resolution.decision }, "dashboard: approval decided");
    const done = d.resolution.decision === "approve" ? "Approved" : "Denied";
    return c.html(messagePage(done, session, `${done} ${d.approval.id}: the run continues with the decision.`, { href: `/app/runs/${encodeURIComponent(d.resumed)}`, label: "The resumed run" }));
  });
}
