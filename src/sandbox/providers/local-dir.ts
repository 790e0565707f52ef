import { createHash } from "node:crypto";
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "../../config/sandbox-config.js";
import { rename, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { z } from "zod";

import type { HostIdentity } from "../host-identity.js";
import type { EgressRules } from "./egress-policy.js";

// One local sandbox's directory on the host: its stored metadata, the provider's options, and the paths
// the sandbox user reaches it by.

export const LOCAL_WORKDIR = "/workspace";
export const LOCAL_ID_RE = /^local-[0-9a-f]{16}$/;

/** Where a root worker exposes each sandbox directory to the sandbox user: a nosuid,nodev bind mount. */
export const RUN_ROOT = "/run/open-swe";

// Settings a sandbox's stored metadata predates come back with the safe value: no network, and
// egress only through the filtering proxy — never the host's network.
export const LocalMeta = z.object({
  id: z.string().regex(LOCAL_ID_RE),
  createdAt: z.string(),
  network: z.boolean().default(false),
  /** proxy: own network namespace, egress only through the worker's filtering proxy; host: the host's network. */
  egress: z.enum(["proxy", "host"]).default("proxy"),
  env: z.record(z.string(), z.string()),
  labels: z.record(z.string(), z.string()),
  hostWorkspace: z.string(),
  external: z.boolean(),
  overlay: z.object({ lower: z.string(), upper: z.string(), work: z.string() }).optional(),
  /** The sandbox's writable data lives on its own size-capped filesystem at <dir>/disk. */
  disk: z.boolean().default(false),
  /** Host uid/gid the sandbox's processes run as (absent: written before it was recorded). */
  owner: z.object({ uid: z.number().int(), gid: z.number().int() }).optional(),
});
export type LocalMeta = z.infer<typeof LocalMeta>;

export interface LocalProviderOptions {
  root: string;
  /** Where the workspace appears inside the sandbox (default /workspace). */
  workdir?: string;
  execTimeoutMs: number;
  maxOutputBytes: number;
  /**
   * How network-on sandboxes get out. "proxy" (default): a private network namespace whose only way
   * out is an HTTP(S) proxy in the worker that refuses loopback, private and metadata addresses.
   * "host": share the host's network (reaches services on the host's loopback: trusted code only).
   */
  egress?: "proxy" | "host";
  /** What the egress proxy refuses beyond internal addresses (default: the github.com API hosts). */
  egressPolicy?: EgressRules;
  /** Hard limits; omitted: the defaults without a disk cap (SANDBOX_DISK_MB gives one via the config). */
  limits?: SandboxLimits;
  /** Host uid/gid of sandbox processes when the worker is root (default 65533). */
  hostUser?: { uid: number; gid: number };
  /** false: never mount an overlay (workspaces are plain copies), e.g. on file systems without it. */
  overlay?: boolean;
  /** Where bwrap and nsenter are looked up (the worker's PATH). */
  hostPath?: string;
  /** false: one bubblewrap per command instead of a command server kept per sandbox (default on). */
  commandServer?: boolean;
}

export const UNCAPPED_DISK_LIMITS: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, diskMb: 0 };

/**
 * The paths of one sandbox directory as the sandbox user reaches them. A non-root worker uses the
 * directory itself (0700, its own). A root worker keeps the directory root-only and exposes it
 * through a nosuid,nodev bind mount under /run: the only way to it that is not root's cannot run a
 * set-uid file or open a device, whatever the sandbox wrote.
 */
export function liveDir(root: string, id: string, owner: HostIdentity): string {
  if (!owner.drop) return join(root, id);
  return join(RUN_ROOT, createHash("sha256").update(root).digest("hex").slice(0, 12), id);
}

/** The workspace as the sandbox user reaches it (through `live`), or the operator's own directory. */
export function workspaceView(dir: string, live: string, meta: LocalMeta, owner: HostIdentity): string {
  if (meta.external) return owner.drop ? join(live, "workspace") : meta.hostWorkspace;
  return join(live, relative(dir, meta.hostWorkspace));
}

export async function writeMeta(dir: string, meta: LocalMeta): Promise<void> {
  const tmp = join(dir, `.meta.${process.pid}.tmp`);
  await writeFile(tmp, JSON.stringify(meta, null, 2), { mode: 0o600 });
  await rename(tmp, join(dir, "meta.json"));
}
