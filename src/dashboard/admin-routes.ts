import { refuseUnlessWriter } from "./repo-rights.js";
import type { Hono } from "hono";
import { html } from "hono/html";
import { z } from "zod";
import { allowedThreadModels } from "../agent/model/thread-model.js";
import { isRepoName } from "../shared/repo-name.js";
import { enqueueAnalyze } from "../review/style/analyze-enqueue.js";
import { reviewStores } from "../review/review-stores.js";
import { MAX_STYLE_PROMPT_CHARS } from "../review/style/style-store.js";
import type { DashboardDeps, DashboardEnv } from "./dashboard-deps.js";
import { selectOptions } from "./profile-routes.js";
import { csrfField, layout, messagePage } from "./views/layout.js";

export const RepoForm = z.object({ repo: z.string().refine(isRepoName, "owner/name"), action: z.enum(["enable", "disable"]) });
const TeamForm = z.object({ agent: z.string().max(120).optional(), reviewer: z.string().max(120).optional() });
const IdentityForm = z.discriminatedUnion("action", [
  z.object({ action: z.literal("set"), sourceUser: z.string().min(3).max(200), login: z.string().min(1).max(39) }),
  z.object({ action: z.literal("remove"), sourceUser: z.string().min(3).max(200) }),
]);
const StyleForm = z.object({ prompt: z.string().min(1, "the style cannot be empty").max(MAX_STYLE_PROMPT_CHARS) });

export function mountAdmin(app: Hono<DashboardEnv>, deps: DashboardDeps): void {
  const models = allowedThreadModels(deps.config.env.THREAD_MODELS);
  const { styles } = reviewStores(deps.redis, deps.prefix);
  const back = { href: "/app/admin", label: "Back to admin" };

  app.get("/app/admin", async (c) => {
    const session = c.get("session");
    const [team, enabled, installed, identities] = await Promise.all([deps.settings.getTeamModels(), deps.settings.listEnabledRepos(), deps.settings.listInstalled(), deps.settings.listIdentities()]);
    const repos = Object.keys(installed).sort();
    const notice = c.req.query("done");
    return c.html(
      layout(
        "Admin",
        session,
        html`
${notice ? html`<p role="status">${notice}</p>` : ""}
<p><a href="/app/admin/queues">Queues (bull-board)</a></p>
<h2>Team default models</h2>
<form method="post" action="/app/admin/team-models">${csrfField(session)}
<label for="team-agent">Coding agent</label><select class="form-select" id="team-agent" name="agent">${selectOptions(models, team.agent, "deployment default")}</select>
<label for="team-reviewer">Reviewer</label><select class="form-select" id="team-reviewer" name="reviewer">${selectOptions(models, team.reviewer, "deployment default")}</select>
<p><button type="submit" class="btn">Save models</button></p>
</form>
<h2>Repositories</h2>
<p>Enabled repositories get automatic reviews and CI autofix.</p>
<div class="table"><table>
<thead><tr><th scope="col">Repository</th><th scope="col">Installation</th><th scope="col">Enabled</th><th scope="col">Review style</th></tr></thead>
<tbody>${repos.map(
          (r) => html`<tr><td>${r}</td><td>${installed[r]!.installationId}</td>
<td><form method="post" action="/app/admin/repos" class="inline">${csrfField(session)}<input type="hidden" name="repo" value="${r}">
${enabled.includes(r) ? html`<input type="hidden" name="action" value="disable"><button type="submit" class="btn btn-sm" aria-label="Disable ${r}">Enabled · disable</button>` : html`<input type="hidden" name="action" value="enable"><button type="submit" class="btn btn-sm" aria-label="Enable ${r}">Enable</button>`}
</form></td>
<td><a href="/app/admin/styles/${r}">View / edit</a></td></tr>`,
        )}</tbody></table></div>
${repos.length === 0 ? html`<p>The app is not installed on any repository yet.</p>` : ""}
${enabled.filter((r) => !repos.includes(r)).length > 0 ? html`<p>Also enabled (no longer installed): ${enabled.filter((r) => !repos.includes(r)).join(", ")}</p>` : ""}
<h2>Identity mappings</h2>
<p>Who a Slack or Linear user is on GitHub; their requests are checked against that login's write access.</p>
${
  Object.keys(identities).length === 0
    ? html`<p>No mappings yet.</p>`
    : html`<div class="table"><table><thead><tr><th scope="col">Source user</th><th scope="col">GitHub login</th><th scope="col"></th></tr></thead><tbody>${Object.entries(identities)
        .sort()
        .map(
          ([who, login]) =>
            html`<tr><td>${who}</td><td>@${login}</td><td><form method="post" action="/app/admin/identities" class="inline">${csrfField(session)}<input type="hidden" name="action" value="remove"><input type="hidden" name="sourceUser" value="${who}"><button type="submit" class="btn btn-sm" aria-label="Remove ${who}">Remove</button></form></td></tr>`,
        )}</tbody></table></div>`
}
<form method="post" action="/app/admin/identities" class="filters">${csrfField(session)}<input type="hidden" name="action" value="set">
<div><label for="id-source">Source user</label><input class="form-control" id="id-source" name="sourceUser" placeholder="slack:U0123ABC" required></div>
<div><label for="id-login">GitHub login</label><input class="form-control" id="id-login" name="login" required></div>
<button type="submit" class="btn">Map</button></form>`,
      ),
    );
  });

  app.post("/app/admin/team-models", async (c) => {
    const session = c.get("session");
    const f = TeamForm.safeParse(await c.req.parseBody());
    if (!f.success) return c.html(messagePage("Not saved", session, "The form was not valid.", back), 400);
    for (const role of ["agent", "reviewer"] as const) {
      const v = f.data[role] || null;
      if (v && !models.includes(v)) return c.html(messagePage("Not saved", session, `The model ${v} is not one this installation allows.`, back), 400);
      await deps.settings.setTeamModel(role, v);
    }
    deps.log.info({ login: session.login }, "dashboard: team models changed");
    return c.redirect("/app/admin?done=Team+models+saved.", 303);
  });

  app.post("/app/admin/repos", async (c) => {
    const session = c.get("session");
    const f = RepoForm.safeParse(await c.req.parseBody());
    if (!f.success) return c.html(messagePage("Not changed", session, `Give a repository as owner/name and an action (enable or disable).`, back), 400);
    const repo = f.data.repo.toLowerCase();
    const installed = (await deps.settings.listInstalled())[repo];
    // An admin changes a repository's settings only while they can write to it (asked of GitHub now).
    if (installed) {
      const refused = await refuseUnlessWriter(c, deps, session, repo, "its settings were not changed", installed.installationId);
      if (refused) return refused;
    }
    if (f.data.action === "enable") {
      if (!installed) return c.html(messagePage("Not enabled", session, `The app is not installed on ${repo}.`, back), 400);
      await deps.settings.enableRepo(repo);
    } else await deps.settings.disableRepo(repo);
    deps.log.info({ login: session.login, repo, action: f.data.action }, "dashboard: repo enablement changed");
    return c.redirect(`/app/admin?done=${encodeURIComponent(`${repo} ${f.data.action}d.`)}`, 303);
  });

  app.post("/app/admin/identities", async (c) => {
    const session = c.get("session");
    const f = IdentityForm.safeParse(await c.req.parseBody());
    if (!f.success) return c.html(messagePage("Not changed", session, "Give the source user (slack:U0123…) and, to map it, a GitHub login.", back), 400);
    try {
      if (f.data.action === "set") await deps.settings.setIdentity(f.data.sourceUser, f.data.login);
      else await deps.settings.removeIdentity(f.data.sourceUser);
    } catch (err) {
      if (!(err instanceof z.ZodError)) throw err;
      return c.html(messagePage("Not changed", session, err.issues[0]?.message ?? "invalid", back), 400);
    }
    deps.log.info({ login: session.login, sourceUser: f.data.sourceUser, action: f.data.action }, "dashboard: identity mapping changed");
    return c.redirect(`/app/admin?done=${encodeURIComponent(`Mapping ${f.data.action === "set" ? "saved" : "removed"}.`)}`, 303);
  });

  const repoOf = (owner: string, name: string) => ({ owner: owner.toLowerCase(), repo: name.toLowerCase() });

  app.get("/app/admin/styles/:owner/:repo", async (c) => {
    const session = c.get("session");
    const r = repoOf(c.req.param("owner"), c.req.param("repo"));
    const full = `${r.owner}/${r.repo}`;
    if (!isRepoName(full)) return c.html(messagePage("Not found", session, "No such repository.", back), 404);
    const style = await styles.get(r);
    const notice = c.req.query("done");
    return c.html(
      layout(
        `Review style · ${full}`,
        session,
        html`
${notice ? html`<p role="status">${notice}</p>` : ""}
<p>${style ? `Version ${style.version}, ${style.mode}, updated ${style.updatedAt}.` : "No learned style yet."}</p>
<form method="post" action="/app/admin/styles/${full}">${csrfField(session)}
<label for="prompt">Style prompt (appended to the reviewer's)</label>
<textarea class="form-control" id="prompt" name="prompt" maxlength="${MAX_STYLE_PROMPT_CHARS}" required>${style?.prompt ?? ""}</textarea>
<p><button type="submit" class="btn">Save style</button></p></form>
<form method="post" action="/app/admin/styles/${full}/relearn">${csrfField(session)}
<button type="submit" class="btn">Re-learn from past reviews</button></form>
<p><a href="/app/admin">Back to admin</a></p>`,
      ),
    );
  });

  app.post("/app/admin/styles/:owner/:repo", async (c) => {
    const session = c.get("session");
    const r = repoOf(c.req.param("owner"), c.req.param("repo"));
    const full = `${r.owner}/${r.repo}`;
    const f = StyleForm.safeParse(await c.req.parseBody());
    if (!isRepoName(full) || !f.success) return c.html(messagePage("Not saved", session, f.success ? "No such repository." : (f.error.issues[0]?.message ?? "invalid"), back), 400);
    const refused = await refuseUnlessWriter(c, deps, session, full.toLowerCase(), "the style was not saved", (await deps.settings.listInstalled())[full.toLowerCase()]?.installationId);
    if (refused) return refused;
    await styles.save(r, f.data.prompt, "bootstrap");
    deps.log.info({ login: session.login, repo: full }, "dashboard: review style edited");
    return c.redirect(`/app/admin/styles/${full}?done=Saved.`, 303);
  });

  app.post("/app/admin/styles/:owner/:repo/relearn", async (c) => {
    const session = c.get("session");
    const full = `${c.req.param("owner")}/${c.req.param("repo")}`.toLowerCase();
    const installed = (await deps.settings.listInstalled())[full];
    if (installed) {
      const refused = await refuseUnlessWriter(c, deps, session, full, "no re-learning was queued", installed.installationId);
      if (refused) return refused;
    }
    try {
      const id = await enqueueAnalyze({
        settings: deps.settings,
        queues: deps.queues,
        repo: full,
        mode: "bootstrap",
        by: { via: "dashboard", principal: { login: session.login, id: session.userId } },
      });
      deps.log.info({ login: session.login, repo: full, jobId: id }, "dashboard: review style re-learn queued");
    } catch (err) {
      return c.html(messagePage("Not queued", session, (err as Error).message, back), 400);
    }
    return c.redirect(`/app/admin/styles/${full}?done=${encodeURIComponent("Re-learning queued (an analyze job).")}`, 303);
  });
}
