import type { Redis } from "ioredis";
import type { Octokit } from "./app-auth.js";
import { keyer } from "../store/keys.js";

const WRITERS = new Set(["admin", "maintain", "write"]);

export interface PermissionCheck {
  octokit: Octokit;
  redis: Redis;
  prefix: string;
  cacheSeconds: number;
  owner: string;
  repo: string;
  login: string;
}

/**
 * Can this person make the app act on this repo? Asks GitHub (role_name covers maintain/triage), caches
 * the answer briefly, and fails closed: any error means no.
 */
export async function hasWriteAccess(c: PermissionCheck): Promise<boolean> {
  const key = keyer(`${c.prefix}:perm`)(`${c.owner}/${c.repo}`.toLowerCase(), c.login.toLowerCase());
  const cached = c.cacheSeconds > 0 ? await c.redis.get(key) : null;
  if (cached !== null) return cached === "1";
  let allowed = false;
  try {
    const res = await c.octokit.request("GET /repos/{owner}/{repo}/collaborators/{username}/permission", {
      owner: c.owner,
      repo: c.repo,
      username: c.login,
    });
    const role = (res.data.role_name ?? res.data.permission ?? "").toLowerCase();
    allowed = WRITERS.has(role) || WRITERS.has(res.data.permission);
  } catch {
    return false;
  }
  if (c.cacheSeconds > 0) await c.redis.set(key, allowed ? "1" : "0", "EX", c.cacheSeconds);
  return allowed;
}
