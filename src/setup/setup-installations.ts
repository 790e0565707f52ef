import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { join } from "node:path";
import { verify } from "@octokit/webhooks-methods";
import type { Logger } from "pino";
import { z } from "zod";
import type { InstalledRepo, SettingsStore } from "../store/settings-store.js";

/** Installations GitHub reported while the process was in setup mode (no Redis yet), kept for the first start. */
export const SETUP_INSTALLATIONS_FILE = "setup-installations.json";

const Repo = z.object({ id: z.number().int(), full_name: z.string().min(3) });
const InstallationEvent = z.object({
  action: z.string(),
  installation: z.object({ id: z.number().int() }),
  repositories: z.array(Repo).optional(),
  repositories_added: z.array(Repo).optional(),
  repositories_removed: z.array(Repo.partial({ id: true })).optional(),
});
const Kept = z.record(z.string(), z.object({ installationId: z.number().int(), repoId: z.number().int().optional() }));

function readKept(path: string): Record<string, InstalledRepo> {
  try {
    return Kept.parse(JSON.parse(readFileSync(path, "utf8")));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw err;
  }
}

/** What an installation event leaves in the kept record (pure). */
export function applyInstallationEvent(kept: Record<string, InstalledRepo>, event: string, e: z.infer<typeof InstallationEvent>): Record<string, InstalledRepo> {
  const next = { ...kept };
  const id = e.installation.id;
  const add = (repos: z.infer<typeof Repo>[] = []) => {
    for (const r of repos) next[r.full_name.toLowerCase()] = { installationId: id, repoId: r.id };
  };
  if (event === "installation" && ["created", "new_permissions_accepted", "unsuspend"].includes(e.action)) add(e.repositories);
  if (event === "installation" && ["deleted", "suspend"].includes(e.action)) for (const [k, v] of Object.entries(next)) if (v.installationId === id) delete next[k];
  if (event === "installation_repositories") {
    add(e.repositories_added);
    for (const r of e.repositories_removed ?? []) delete next[r.full_name.toLowerCase()];
  }
  return next;
}

/**
 * A delivery to `POST /api/github/webhooks` in setup mode once the app is registered (its webhook secret
 * known): GitHub sends `installation.created` right after the install page, while this process still
 * runs the setup flow. A signed installation event is kept in `DATA_DIR` (0600) for the first normal
 * start; other events are acknowledged and dropped (nothing can act on them yet). Returns the answer.
 */
export async function keepSetupInstallation(o: {
  headers: IncomingHttpHeaders;
  body: string;
  secret: string;
  dataDir: string;
  log: Logger;
}): Promise<{ status: number; body: Record<string, unknown> }> {
  const signature = String(o.headers["x-hub-signature-256"] ?? "");
  const deliveryId = o.headers["x-github-delivery"];
  if (!signature || !(await verify(o.secret, o.body, signature).catch(() => false))) {
    o.log.warn({ deliveryId }, "setup mode: webhook refused, bad signature");
    return { status: 400, body: { error: "signature does not match" } };
  }
  const event = String(o.headers["x-github-event"] ?? "");
  if (event !== "installation" && event !== "installation_repositories") return { status: 202, body: { kept: false, reason: "setup mode: only installation events are kept" } };
  let parsed: z.infer<typeof InstallationEvent>;
  try {
    parsed = InstallationEvent.parse(JSON.parse(o.body));
  } catch {
    return { status: 400, body: { error: "not an installation event" } };
  }
  mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const path = join(o.dataDir, SETUP_INSTALLATIONS_FILE);
  const next = applyInstallationEvent(readKept(path), event, parsed);
  writeFileSync(`${path}.tmp`, JSON.stringify(next), { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
  o.log.info({ deliveryId, installationId: parsed.installation.id, repos: Object.keys(next).length }, "setup mode: installation kept for the first start");
  return { status: 202, body: { kept: true } };
}

/** At start-up: the installations kept in setup mode go into the installed-repositories record, once. */
export async function applySetupInstallations(dataDir: string, settings: SettingsStore, log: Logger): Promise<number> {
  const path = join(dataDir, SETUP_INSTALLATIONS_FILE);
  const claimed = `${path}.${process.pid}`;
  try {
    renameSync(path, claimed); // one process (web or worker) takes it
  } catch {
    return 0;
  }
  const kept = readKept(claimed);
  for (const [repo, v] of Object.entries(kept)) await settings.recordInstalled(repo, v);
  rmSync(claimed, { force: true });
  log.info({ repos: Object.keys(kept).length }, "installations kept in setup mode recorded");
  return Object.keys(kept).length;
}
