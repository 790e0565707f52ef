import type { Probot } from "probot";
import type { HandlerDeps } from "../handler-deps.js";

/** Keeps the installed-repos record current; it costs no GitHub call, only Redis writes. */
export function registerInstallationHandlers(app: Probot, deps: HandlerDeps): void {
  app.on(["installation.created", "installation.new_permissions_accepted", "installation.unsuspend"], async (ctx) => {
    const installationId = ctx.payload.installation.id;
    for (const r of ctx.payload.repositories ?? []) {
      await deps.settings.recordInstalled(r.full_name, { installationId, repoId: r.id });
    }
    deps.log.info({ deliveryId: ctx.id, installationId, repos: ctx.payload.repositories?.length ?? 0 }, "installation recorded");
  });

  app.on(["installation.deleted", "installation.suspend"], async (ctx) => {
    const removed = await deps.settings.removeInstallation(ctx.payload.installation.id);
    deps.log.info({ deliveryId: ctx.id, removed }, "installation removed");
  });

  app.on("installation_repositories", async (ctx) => {
    const installationId = ctx.payload.installation.id;
    for (const r of ctx.payload.repositories_added) await deps.settings.recordInstalled(r.full_name, { installationId, repoId: r.id });
    for (const r of ctx.payload.repositories_removed) if (r.full_name) await deps.settings.removeInstalled(r.full_name);
  });
}
