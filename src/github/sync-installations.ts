import type { Logger } from "pino";
import type { QueueSet } from "../queue/queues.js";
import type { InstalledRepo, SettingsStore } from "../store/settings-store.js";
import { z } from "zod";
import type { Octokit } from "./app-auth.js";
import type { GitHubAuth } from "../shared/github-auth.js";

const Installations = z.array(z.object({ id: z.number().int(), suspended_at: z.string().nullable().optional() }));
const InstallationRepos = z.object({ repositories: z.array(z.object({ id: z.number().int(), full_name: z.string().min(3) })) });

export interface InstallationSync {
  installations: number;
  repos: number;
  removed: number;
}

/** The hourly scheduler of the `ci-monitor` queue's `installations` job. */
export const INSTALLATION_SYNC_SCHEDULER = "installations-sync";
const SYNC_EVERY_MS = 60 * 60_000;

/** Every page of a list, following GitHub's `link: rel="next"` (Octokit's paginate drops per-request options such as `retries`). */
async function allPages<T>(octokit: Octokit, url: string, pick: (data: unknown) => T[], request: Record<string, unknown>): Promise<T[]> {
  const out: T[] = [];
  let next: string | undefined = url;
  for (let page = 0; next && page < 100; page++) {
    const res: { data: unknown; headers: Record<string, unknown> } = await octokit.request({ method: "GET", url: next, request });
    out.push(...pick(res.data));
    next = /<([^>]+)>;\s*rel="next"/.exec(String(res.headers["link"] ?? ""))?.[1];
  }
  return out;
}

/**
 * Rebuilds the installed-repositories record from GitHub (`GET /app/installations`, then each one's
 * `GET /installation/repositories`, every page): the webhooks that keep it current can be missed (an
 * install during setup mode, a delivery lost while the app was down), so the API is the truth. A
 * suspended installation counts as not installed.
 */
export async function syncInstallations(deps: { github: Pick<GitHubAuth, "app" | "installation">; settings: SettingsStore; log: Logger; signal?: AbortSignal }): Promise<InstallationSync> {
  // No Octokit retries (the job has its own, with backoff) so an attempt never holds a worker's shutdown;
  // the job's signal stops it at once.
  const request = { retries: 0, ...(deps.signal ? { signal: deps.signal } : {}) };
  const installations = await allPages(await deps.github.app(), "/app/installations?per_page=100", (d) => Installations.parse(d), request);
  const seen: Record<string, InstalledRepo> = {};
  for (const inst of installations) {
    if (inst.suspended_at) continue;
    const repos = await allPages(await deps.github.installation(inst.id), "/installation/repositories?per_page=100", (d) => InstallationRepos.parse(d).repositories, request);
    for (const r of repos) seen[r.full_name.toLowerCase()] = { installationId: inst.id, repoId: r.id };
  }
  const removed = await deps.settings.replaceInstalled(seen);
  const result = { installations: installations.length, repos: Object.keys(seen).length, removed };
  deps.log.info(result, "installations synced from GitHub");
  return result;
}

/** Queues one sync now (start-up, an unknown installation) — at most one waiting at a time — and keeps the hourly one. */
export async function requestInstallationSync(queues: QueueSet, reason: "startup" | "unknown_installation"): Promise<void> {
  await queues.add("ci-monitor", { reason: "installations" }, `installations-sync__${reason}__${Date.now()}`, {
    via: "system:installation-sync",
    deduplication: { id: "installations-sync", ttl: 60_000 },
    attempts: 5,
    backoff: { type: "exponential", delay: 10_000 },
  });
}

export async function scheduleInstallationSync(queues: QueueSet): Promise<void> {
  await queues.schedule(
    "ci-monitor",
    INSTALLATION_SYNC_SCHEDULER,
    { every: SYNC_EVERY_MS },
    { name: "installations", data: { reason: "installations" }, opts: { attempts: 1 } },
    "system:installation-sync",
  );
  await requestInstallationSync(queues, "startup");
}
