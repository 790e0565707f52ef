import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { RedisSaver } from "../agent/checkpoint/redis-saver.js";
import type { AppConfig } from "../config/env.js";
import type { GitHubAuth } from "../shared/github-auth.js";
import type { QueueSet } from "../queue/queues.js";
import type { SecretBox } from "../store/secret-box.js";
import type { SettingsStore } from "../store/settings-store.js";
import type { OAuthClient } from "../github/user-oauth.js";
import type { Approvals } from "../threads/approvals.js";
import type { LiveHub } from "./live-hub.js";
import type { LiveStreamLimit } from "./live-stream-limit.js";
import type { PrHealthCache } from "./pr-health.js";
import type { RunLiveState } from "./live-view.js";
import type { Session, SessionStore } from "./session-store.js";

export interface DashboardDeps {
  config: AppConfig;
  redis: Redis;
  prefix: string;
  queues: QueueSet;
  settings: SettingsStore;
  sessions: SessionStore;
  checkpoints: RedisSaver;
  /** null: GITHUB_CLIENT_ID/SECRET are not set, so nobody can sign in. */
  oauth: OAuthClient | null;
  /** null: OPEN_SWE_SECRET_KEY is not set, so no user token is stored ("open PRs as me" is off). */
  secretBox: SecretBox | null;
  cookieSecret: Buffer;
  /** Cookies get `Secure` when the app is served over TLS (APP_URL https). */
  secureCookies: boolean;
  /** Open live views per session and per address (in this process). */
  liveStreams: LiveStreamLimit;
  /** The live views' shared subscriptions (one per followed run in this process). */
  live: LiveHub<RunLiveState>;
  /** Pull requests' health, kept briefly (`pr-health.ts`). */
  prHealth: PrHealthCache;
  log: Logger;
  /** The app's installation clients: rights are asked of GitHub when an action happens (`repo-rights.ts`). */
  github: GitHubAuth | null;
  /** Paused runs: listed, shown on their run, decided (`src/approvals/approvals-service.ts`, wired by the web role). */
  approvals: Approvals;
}

export interface DashboardEnv {
  Variables: { session: Session; sessionId: string };
}
