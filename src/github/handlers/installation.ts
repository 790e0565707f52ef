import type { Probot } from "probot";
import { errorMessage } from "../../errors.js";
import type { HandlerDeps } from "../handler-deps.js";
import { requestInstallationSync } from "../sync-installations.js";

const ASK_AGAIN_MS = 10 * 60_000;

/** Keeps the installed-repos record current; it costs no GitHub call, only Redis writes. */
export function registerInstallationHandlers(app: Probot, deps: HandlerDeps): void {
  // A delivery naming an installation the record does not know: its install event was missed (setup
  // mode, downtime), so a worker rebuilds the record from the API. Known ids are remembered per process.
  const known = new Set<number>();
  const asked = new Map<number, number>();
  app.onAny(async (ctx) => {
    const id = (ctx.payload as { installation?: { id?: unknown } }).installation?.id;
    if (typeof id !== "number" || known.has(id) || Date.now() - (asked.get(id) ?? 0) < ASK_AGAIN_MS) return;
    try {
      if (await deps.settings.hasInstallation(id)) {
        known.add(id);
        return;
      }
      asked.set(id, Date.now());
      await requestInstallationSync(deps.queues, "unknown_installation");
      deps.log.info({ deliveryId: ctx.id, installationId: id }, "a delivery named an installation the record does not know: syncing installations from GitHub");
    } catch (err) {
      deps.log.warn({ deliveryId: ctx.id, installationId: id, err: errorMessage(err) }, "could not queue the installations sync");
    }
  });

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
