import { join } from "node:path";
import { z } from "zod";
import { OpenSweError } from "../errors.js";
import { envRefusal, httpUrl } from "./env-refusal.js";

/** The sandbox providers a deployment may choose (`SANDBOX_TYPE`); each has a factory in src/sandbox/registry.ts. */
export const SANDBOX_TYPES = ["local", "e2b", "modal", "daytona"] as const;
export type SandboxType = (typeof SANDBOX_TYPES)[number];

/** Per-sandbox hard limits (env: SANDBOX_LIMITS, SANDBOX_MEMORY_MB, … below). */
export interface SandboxLimits {
  /** auto: cgroups when the worker can create them, else rlimits; cgroup: cgroups or refuse; rlimit: rlimits only. */
  mode: "auto" | "cgroup" | "rlimit";
  memoryMb: number;
  pids: number;
  cpus: number;
  /** Size of the private /tmp and /dev/shm tmpfs (counted in memory under cgroups). */
  tmpMb: number;
  /** Workspace disk cap; 0 = none. */
  diskMb: number;
  /** Absolute cgroup path to create sandbox cgroups under (default: `<worker's cgroup>/open-swe`). */
  cgroupParent?: string;
}

/** Sized so a 2-core / 8 GiB worker survives four sandboxes at their caps at once (4 × 1.5 GiB + worker). */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { mode: "auto", memoryMb: 1536, pids: 512, cpus: 1, tmpMb: 512, diskMb: 8192 };

/** The default host uid/gid of sandbox processes when the worker runs as root (owns nothing on a stock host). */
export const DEFAULT_SANDBOX_HOST_UID = 65533;

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** The sandbox part of the app's env; the integrator merges it into the single env reader. */
export const SandboxEnv = z.object({
  SANDBOX_TYPE: z.enum(SANDBOX_TYPES).default("local"),
  SANDBOX_ROOT: optionalString,
  SANDBOX_MIRROR_ROOT: optionalString,
  SANDBOX_EXEC_TIMEOUT_MS: positiveInt(10 * 60_000),
  SANDBOX_CREATE_TIMEOUT_MS: positiveInt(120_000),
  // Lifecycle: a thread's sandbox with no run for this long is destroyed (0 = kept until its PR/issue closes).
  SANDBOX_IDLE_TTL_MINUTES: z.coerce.number().int().min(0).default(1440),
  // Sandboxes made for a thread but never recorded, and unused shared checkouts, older than this are removed.
  SANDBOX_ORPHAN_GRACE_MINUTES: positiveInt(30),
  SANDBOX_MAX_OUTPUT_BYTES: positiveInt(1024 * 1024),
  SANDBOX_LOCAL_EGRESS: z.enum(["proxy", "host"]).default("proxy"),
  // Connections one local sandbox may hold through the egress proxy at once (the proxy's 1,024 are shared).
  SANDBOX_EGRESS_MAX_CONNECTIONS: positiveInt(128),
  // Host git (room hostgit): the largest push bundle a sandbox may hand the host.
  SANDBOX_MAX_BUNDLE_MB: positiveInt(100),
  GHE_HOST: optionalString,
  GITHUB_API_URL: optionalString,
  SANDBOX_LIMITS: z.enum(["auto", "cgroup", "rlimit"]).default(DEFAULT_SANDBOX_LIMITS.mode),
  SANDBOX_MEMORY_MB: positiveInt(DEFAULT_SANDBOX_LIMITS.memoryMb),
  SANDBOX_PIDS: positiveInt(DEFAULT_SANDBOX_LIMITS.pids),
  SANDBOX_CPUS: z.coerce.number().min(0.01).max(1024).default(DEFAULT_SANDBOX_LIMITS.cpus),
  SANDBOX_TMP_MB: positiveInt(DEFAULT_SANDBOX_LIMITS.tmpMb),
  SANDBOX_DISK_MB: z.coerce.number().int().min(0).default(DEFAULT_SANDBOX_LIMITS.diskMb),
  SANDBOX_CGROUP_PARENT: optionalString.pipe(z.string().startsWith("/", "must be an absolute cgroup path").optional()),
  SANDBOX_HOST_UID: positiveInt(DEFAULT_SANDBOX_HOST_UID),
  SANDBOX_HOST_GID: z.coerce.number().int().positive().optional(),
  SANDBOX_LOCAL_OVERLAY: z.enum(["auto", "off"]).default("auto"),
  SANDBOX_LOCAL_COMMAND_SERVER: z.enum(["on", "off"]).default("on"),
  PATH: z.string().default("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
  E2B_API_KEY: optionalString,
  E2B_TEMPLATE: z.string().default("base"),
  E2B_DOMAIN: optionalString,
  // The SDK's own overrides (a self-hosted E2B, a proxy); the tests point them at a loopback server.
  E2B_API_URL: optionalString.pipe(httpUrl("https://api.e2b.example.com").optional()),
  E2B_SANDBOX_URL: optionalString.pipe(httpUrl("https://sandbox.e2b.example.com").optional()),
  MODAL_TOKEN_ID: optionalString,
  MODAL_TOKEN_SECRET: optionalString,
  MODAL_APP_NAME: z.string().default("open-swe"),
  MODAL_IMAGE: z.string().default("node:24-bookworm"),
  DAYTONA_API_KEY: optionalString,
  DAYTONA_API_URL: httpUrl("https://app.daytona.io/api").default("https://app.daytona.io/api"),
  DAYTONA_IMAGE: optionalString,
  DAYTONA_SNAPSHOT: optionalString,
});
export type SandboxEnv = z.infer<typeof SandboxEnv>;

export interface SandboxConfig {
  type: SandboxEnv["SANDBOX_TYPE"];
  /** One directory per local sandbox (its workspace and metadata). */
  root: string;
  /** Host-side git mirrors and checked-out bases. */
  mirrorRoot: string;
  execTimeoutMs: number;
  createTimeoutMs: number;
  /** 0: never (teardown only when the PR or issue closes). */
  idleTtlMs: number;
  orphanGraceMs: number;
  maxOutputBytes: number;
  /** Local provider, network on: "proxy" (own netns + filtering egress proxy) or "host" (host network). */
  localEgress: "proxy" | "host";
  /** `SANDBOX_EGRESS_MAX_CONNECTIONS`: one sandbox's share of the egress proxy. */
  egressMaxConnections: number;
  /** `SANDBOX_MAX_BUNDLE_MB` in bytes: a push bundle from a sandbox larger than this is refused. */
  maxBundleBytes: number;
  /** GitHub Enterprise host, whose API the egress proxy closes to sandboxes (github.com's always is). */
  gheHost?: string;
  /** GITHUB_API_URL: its host is closed to sandboxes too. */
  githubApiUrl?: string;
  /** Local provider: per-sandbox memory, process, CPU, /tmp and workspace disk caps. */
  limits: SandboxLimits;
  /** Local provider, root worker: the host uid/gid sandbox processes run as. */
  hostUser: { uid: number; gid: number };
  /** Local provider: "off" never mounts overlays (workspaces are copies). */
  localOverlay: "auto" | "off";
  /** Local provider: "on" runs each sandbox's commands in one kept bubblewrap (a command server), "off" one per command. */
  localCommandServer: "on" | "off";
  /** Where bwrap, nsenter and mount are looked up (the worker's PATH). */
  hostPath: string;
  e2b: { apiKey?: string; template: string; domain?: string; apiUrl?: string; sandboxUrl?: string };
  modal: { tokenId?: string; tokenSecret?: string; appName: string; image: string };
  daytona: { apiKey?: string; apiUrl: string; image?: string; snapshot?: string };
}

function defined<T extends Record<string, unknown>>(obj: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as never;
}

export function readSandboxConfig(env: Record<string, string | undefined>, cwd: string = process.cwd()): SandboxConfig {
  const parsed = SandboxEnv.safeParse(env);
  if (!parsed.success) throw new OpenSweError("config_invalid", envRefusal(parsed.error, env));
  const e = parsed.data;
  return {
    type: e.SANDBOX_TYPE,
    root: e.SANDBOX_ROOT ?? join(cwd, ".data", "sandboxes"),
    mirrorRoot: e.SANDBOX_MIRROR_ROOT ?? join(cwd, ".data", "mirrors"),
    execTimeoutMs: e.SANDBOX_EXEC_TIMEOUT_MS,
    createTimeoutMs: e.SANDBOX_CREATE_TIMEOUT_MS,
    idleTtlMs: e.SANDBOX_IDLE_TTL_MINUTES * 60_000,
    // Never shorter than a creation may take: a sandbox still being made is not an orphan yet.
    orphanGraceMs: Math.max(e.SANDBOX_ORPHAN_GRACE_MINUTES * 60_000, 2 * e.SANDBOX_CREATE_TIMEOUT_MS),
    maxOutputBytes: e.SANDBOX_MAX_OUTPUT_BYTES,
    localEgress: e.SANDBOX_LOCAL_EGRESS,
    egressMaxConnections: e.SANDBOX_EGRESS_MAX_CONNECTIONS,
    maxBundleBytes: e.SANDBOX_MAX_BUNDLE_MB * 1024 * 1024,
    ...defined({ gheHost: e.GHE_HOST }),
    ...defined({ githubApiUrl: e.GITHUB_API_URL }),
    limits: {
      mode: e.SANDBOX_LIMITS,
      memoryMb: e.SANDBOX_MEMORY_MB,
      pids: e.SANDBOX_PIDS,
      cpus: e.SANDBOX_CPUS,
      tmpMb: e.SANDBOX_TMP_MB,
      diskMb: e.SANDBOX_DISK_MB,
      ...defined({ cgroupParent: e.SANDBOX_CGROUP_PARENT }),
    },
    hostUser: { uid: e.SANDBOX_HOST_UID, gid: e.SANDBOX_HOST_GID ?? e.SANDBOX_HOST_UID },
    localOverlay: e.SANDBOX_LOCAL_OVERLAY,
    localCommandServer: e.SANDBOX_LOCAL_COMMAND_SERVER,
    hostPath: e.PATH,
    e2b: { ...defined({ apiKey: e.E2B_API_KEY, domain: e.E2B_DOMAIN, apiUrl: e.E2B_API_URL, sandboxUrl: e.E2B_SANDBOX_URL }), template: e.E2B_TEMPLATE },
    modal: { ...defined({ tokenId: e.MODAL_TOKEN_ID, tokenSecret: e.MODAL_TOKEN_SECRET }), appName: e.MODAL_APP_NAME, image: e.MODAL_IMAGE },
    daytona: { ...defined({ apiKey: e.DAYTONA_API_KEY, image: e.DAYTONA_IMAGE, snapshot: e.DAYTONA_SNAPSHOT }), apiUrl: e.DAYTONA_API_URL },
  };
}
