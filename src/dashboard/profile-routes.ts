import type { Hono } from "hono";
import { html } from "hono/html";
import { z } from "zod";
import { allowedThreadModels } from "../agent/model/thread-model.js";
import { Profile } from "../store/settings-store.js";
import { UserTokens } from "../store/user-tokens.js";
import type { DashboardDeps, DashboardEnv } from "./dashboard-deps.js";
import { csrfField, layout, messagePage, type Html } from "./views/layout.js";

const EFFORTS = ["low", "medium", "high"] as const;

/** The profile form as posted: checkboxes are present or absent, empty selects mean "the default". */
export const ProfileForm = z.object({
  model: z.string().max(120).optional(),
  effort: z.enum(["", ...EFFORTS]).optional(),
  autoFixCi: z.literal("on").optional(),
  autoReview: z.literal("on").optional(),
  prsAsMe: z.literal("on").optional(),
  instructions: z.string().max(4000).optional(),
});

export function selectOptions(values: readonly string[], current: string | undefined, emptyLabel: string): Html {
  return html`<option value="" ${current ? "" : "selected"}>${emptyLabel}</option>${values.map((v) => html`<option value="${v}" ${v === current ? "selected" : ""}>${v}</option>`)}`;
}

export function mountProfile(app: Hono<DashboardEnv>, deps: DashboardDeps): void {
  const models = allowedThreadModels(deps.config.env.THREAD_MODELS);
  const tokens = deps.secretBox ? new UserTokens(deps.redis, deps.prefix, deps.secretBox) : null;

  app.get("/app/profile", async (c) => {
    const session = c.get("session");
    const profile = await deps.settings.getProfile(session.login);
    const hasToken = tokens ? (await tokens.get(session.login)) !== null : false;
    const saved = c.req.query("saved") === "1";
    return c.html(
      layout(
        `Profile · @${session.login}`,
        session,
        html`
${saved ? html`<div class="flash flash-success mb-3" role="status">Saved.</div>` : ""}
<form method="post" action="/app/profile">${csrfField(session)}
<label for="model">Model for your runs</label>
<select class="form-select" id="model" name="model">${selectOptions(models, profile.model, "team default")}</select>
<label for="effort">Effort</label>
<select class="form-select" id="effort" name="effort">${selectOptions(EFFORTS, profile.effort, "default")}</select>
<label for="instructions">Instructions for your runs (added to the agent's system prompt after the repository's)</label>
<textarea class="form-control" id="instructions" name="instructions" maxlength="4000">${profile.instructions ?? ""}</textarea>
<div class="form-checkbox"><label><input type="checkbox" id="autoFixCi" name="autoFixCi" ${profile.autoFixCi ? "checked" : ""}> Fix CI automatically on my PRs (autoFixCi)</label></div>
<div class="form-checkbox"><label><input type="checkbox" id="autoReview" name="autoReview" ${profile.autoReview ? "checked" : ""}> Review my pull requests automatically</label></div>
<div class="form-checkbox"><label><input type="checkbox" id="prsAsMe" name="prsAsMe" aria-describedby="prsAsMe-note" ${profile.prsAsMe ? "checked" : ""} ${tokens ? "" : "disabled"}> Open PRs as me</label>
<p class="note" id="prsAsMe-note">${
          tokens
            ? profile.prsAsMe
              ? hasToken
                ? "Your GitHub token is stored encrypted; PRs of your runs are opened as you."
                : "No usable token is stored: save to authorise again."
              : "Your runs' PRs are opened by the app. Turning this on asks GitHub to authorise the app for you; the token is stored encrypted."
            : "Needs OPEN_SWE_SECRET_KEY on the server."
        }</p></div>
<button type="submit" class="btn btn-primary">Save</button>
</form>`,
      ),
    );
  });

  app.post("/app/profile", async (c) => {
    const session = c.get("session");
    const form = ProfileForm.safeParse(await c.req.parseBody());
    if (!form.success) return c.html(messagePage("Not saved", session, `The form was not valid: ${form.error.issues[0]?.message ?? "invalid"}.`, { href: "/app/profile", label: "Back" }), 400);
    const f = form.data;
    if (f.model && !models.includes(f.model))
      return c.html(messagePage("Not saved", session, `The model ${f.model} is not one this installation allows.`, { href: "/app/profile", label: "Back" }), 400);
    const prsAsMe = f.prsAsMe === "on" && tokens !== null;
    const next: Profile = Profile.parse({
      autoFixCi: f.autoFixCi === "on",
      autoReview: f.autoReview === "on",
      prsAsMe,
      ...(f.model ? { model: f.model } : {}),
      ...(f.effort ? { effort: f.effort } : {}),
      ...(f.instructions?.trim() ? { instructions: f.instructions.trim() } : {}),
    });
    await deps.settings.replaceProfile(session.login, next);
    if (!prsAsMe) await tokens?.remove(session.login);
    // On with no token yet: one more trip through GitHub stores it.
    if (prsAsMe && !(await tokens!.get(session.login))) return c.redirect(`/auth/login?next=${encodeURIComponent("/app/profile?saved=1")}`, 303);
    return c.redirect("/app/profile?saved=1", 303);
  });
}
