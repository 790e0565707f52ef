import type { Logger } from "pino";
import type { AppConfig } from "../config/env.js";
import type { Enqueue, QueueSet } from "../queue/queues.js";
import type { SettingsStore } from "../store/settings-store.js";
import type { PrThreads } from "../store/pr-threads.js";

export interface HandlerDeps {
  config: AppConfig;
  queues: QueueSet;
  /** Where the webhook handlers put their jobs: `queues` itself, or with WEBHOOK_INTAKE=stream the intake stream. */
  intake: Enqueue;
  settings: SettingsStore;
  prThreads: PrThreads;
  log: Logger;
}

export interface RepoCoords {
  installationId: number;
  owner: string;
  repo: string;
}

/** Events without an installation (e.g. sent to a plain repo webhook) cannot be acted on. */
export function repoCoords(payload: { installation?: { id: number } | null; repository?: { name: string; owner: { login: string } } | null }): RepoCoords | null {
  if (!payload.installation || !payload.repository) return null;
  return { installationId: payload.installation.id, owner: payload.repository.owner.login, repo: payload.repository.name };
}
