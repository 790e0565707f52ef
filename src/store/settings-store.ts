import type { Redis } from "ioredis";
import { z } from "zod";
import { ToolPattern, ToolPolicies, ToolPolicy } from "../config/tool-policy.js";
import { McpServerConfig, McpServerName, McpSecretName, type McpServers } from "../config/mcp-config.js";
import type { SecretBox } from "./secret-box.js";
import { isRepoName, repoNameError } from "../shared/repo-name.js";
import { keyer } from "./keys.js";

const ProfileFields = {
  autoFixCi: z.boolean(),
  autoReview: z.boolean(),
  model: z.string().min(1),
  effort: z.enum(["low", "medium", "high"]),
  /** Open and update this user's PRs with their own GitHub token (stored sealed), not the app's. */
  prsAsMe: z.boolean(),
  /** The user's own instructions for their runs (a system-prompt part after the repository's). */
  instructions: z.string().max(4000),
};

export const Profile = z
  .object({
    autoFixCi: ProfileFields.autoFixCi.default(false),
    autoReview: ProfileFields.autoReview.default(true),
    model: ProfileFields.model.optional(),
    effort: ProfileFields.effort.optional(),
    prsAsMe: ProfileFields.prsAsMe.default(false),
    instructions: ProfileFields.instructions.optional(),
  })
  .strict();
export type Profile = z.infer<typeof Profile>;

/** A change to a profile: only the keys it names. No defaults here, or a patch would reset what it does not name. */
export const ProfilePatch = z
  .object({
    autoFixCi: ProfileFields.autoFixCi.optional(),
    autoReview: ProfileFields.autoReview.optional(),
    model: ProfileFields.model.optional(),
    effort: ProfileFields.effort.optional(),
    prsAsMe: ProfileFields.prsAsMe.optional(),
    instructions: ProfileFields.instructions.optional(),
  })
  .strict();
export type ProfilePatch = z.infer<typeof ProfilePatch>;

export const TeamModels = z.object({ agent: z.string().min(1).optional(), reviewer: z.string().min(1).optional() }).strict();
export type TeamModels = z.infer<typeof TeamModels>;

export const InstalledRepo = z.object({ installationId: z.number().int(), repoId: z.number().int().optional() });
export type InstalledRepo = z.infer<typeof InstalledRepo>;

const RepoName = z
  .string()
  .refine(isRepoName, { error: (iss) => repoNameError(String(iss.input)) })
  .transform((s) => s.toLowerCase());
const PrRef = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+#\d+$/, "owner/repo#number")
  .transform((s) => s.toLowerCase());

/** `slack:U0123`, `linear:<user id>`, `slack:C0123` (a channel), `linear:<team id>`: a source and its own id. */
const SourceKey = z.string().regex(/^[a-z][a-z0-9-]*:\S+$/, "source:id, e.g. slack:U0123ABC or linear:<team id>");
const GitHubLogin = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, "a GitHub login")
  .transform((s) => s.toLowerCase());

/** Typed, validated settings in Redis: what an operator (CLI) or a user command (comment) changes. */
export class SettingsStore {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = keyer(`${prefix}:settings`);
  }

  async enableRepo(repo: string): Promise<void> {
    await this.redis.sadd(this.key("enabled-repos"), RepoName.parse(repo));
  }
  async disableRepo(repo: string): Promise<void> {
    await this.redis.srem(this.key("enabled-repos"), RepoName.parse(repo));
  }
  async isRepoEnabled(repo: string): Promise<boolean> {
    return (await this.redis.sismember(this.key("enabled-repos"), RepoName.parse(repo))) === 1;
  }
  async listEnabledRepos(): Promise<string[]> {
    return (await this.redis.smembers(this.key("enabled-repos"))).sort();
  }

  async getProfile(login: string): Promise<Profile> {
    const raw = await this.redis.hget(this.key("profiles"), login.toLowerCase());
    return Profile.parse(raw ? JSON.parse(raw) : {});
  }
  async setProfile(login: string, patch: ProfilePatch): Promise<Profile> {
    const named = Object.fromEntries(Object.entries(ProfilePatch.parse(patch)).filter(([, v]) => v !== undefined));
    const next = Profile.parse({ ...(await this.getProfile(login)), ...named });
    await this.redis.hset(this.key("profiles"), login.toLowerCase(), JSON.stringify(next));
    return next;
  }

  /** The whole profile at once (a form that can also clear `model`/`effort`). */
  async replaceProfile(login: string, profile: Profile): Promise<Profile> {
    const next = Profile.parse(profile);
    await this.redis.hset(this.key("profiles"), login.toLowerCase(), JSON.stringify(next));
    return next;
  }

  async getTeamModels(): Promise<TeamModels> {
    const raw = await this.redis.get(this.key("team-models"));
    return TeamModels.parse(raw ? JSON.parse(raw) : {});
  }
  async setTeamModel(role: keyof TeamModels, model: string | null): Promise<TeamModels> {
    const current = await this.getTeamModels();
    const next = TeamModels.parse(model === null ? { ...current, [role]: undefined } : { ...current, [role]: model });
    await this.redis.set(this.key("team-models"), JSON.stringify(next));
    return next;
  }

  /** The team's default tool policies (repo config overrides them per repo). */
  async getToolPolicies(): Promise<ToolPolicies> {
    return ToolPolicies.parse(await this.redis.hgetall(this.key("tool-policies")));
  }
  async setToolPolicy(tool: string, policy: ToolPolicy | null): Promise<ToolPolicies> {
    const name = ToolPattern.parse(tool);
    if (policy === null) await this.redis.hdel(this.key("tool-policies"), name);
    else await this.redis.hset(this.key("tool-policies"), name, ToolPolicy.parse(policy));
    return this.getToolPolicies();
  }

  /** The team's MCP servers, offered to every run (a repository's entry of the same name replaces one). */
  async getMcpServers(): Promise<McpServers> {
    const raw = await this.redis.hgetall(this.key("mcp-servers"));
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, McpServerConfig.parse(JSON.parse(v))]));
  }
  async setMcpServer(name: string, config: unknown): Promise<McpServers> {
    const n = McpServerName.parse(name);
    if (config === null) await this.redis.hdel(this.key("mcp-servers"), n);
    else await this.redis.hset(this.key("mcp-servers"), n, JSON.stringify(McpServerConfig.parse(config)));
    return this.getMcpServers();
  }

  /** Named secrets for team MCP servers' headers, sealed with the deployment's key (never stored in clear). */
  async setMcpSecret(name: string, value: string | null, box: SecretBox): Promise<string[]> {
    const n = McpSecretName.parse(name);
    if (value === null) await this.redis.hdel(this.key("mcp-secrets"), n);
    else await this.redis.hset(this.key("mcp-secrets"), n, box.seal(value, `mcp-secret:${n}`));
    return this.listMcpSecretNames();
  }
  async listMcpSecretNames(): Promise<string[]> {
    return (await this.redis.hkeys(this.key("mcp-secrets"))).sort();
  }
  /** The secrets this box can open; one sealed with a retired key is skipped (its servers then say it is not set). */
  async getMcpSecrets(box: SecretBox): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const [name, sealed] of Object.entries(await this.redis.hgetall(this.key("mcp-secrets")))) {
      try {
        out[name] = box.open(sealed, `mcp-secret:${name}`);
      } catch {
        // undecryptable: left out
      }
    }
    return out;
  }

  /** Per-PR autofix toggle: null when nobody has said `@open-swe autofix on|off` on that PR. */
  async getAutofix(pr: string): Promise<boolean | null> {
    const raw = await this.redis.hget(this.key("autofix"), PrRef.parse(pr));
    return raw === null ? null : raw === "on";
  }
  async setAutofix(pr: string, enabled: boolean): Promise<void> {
    await this.redis.hset(this.key("autofix"), PrRef.parse(pr), enabled ? "on" : "off");
  }

  async recordInstalled(repo: string, value: InstalledRepo): Promise<void> {
    await this.redis.hset(this.key("installed"), RepoName.parse(repo), JSON.stringify(InstalledRepo.parse(value)));
  }
  async removeInstalled(repo: string): Promise<void> {
    await this.redis.hdel(this.key("installed"), RepoName.parse(repo));
  }
  async removeInstallation(installationId: number): Promise<number> {
    const all = await this.listInstalled();
    const gone = Object.entries(all)
      .filter(([, v]) => v.installationId === installationId)
      .map(([k]) => k);
    if (gone.length > 0) await this.redis.hdel(this.key("installed"), ...gone);
    return gone.length;
  }
  /** The whole record at once (a sync from GitHub's API): entries not in `repos` go; returns how many went. */
  async replaceInstalled(repos: Record<string, InstalledRepo>): Promise<number> {
    const key = this.key("installed");
    const gone = Object.keys(await this.redis.hgetall(key)).filter((k) => !Object.hasOwn(repos, k));
    const tx = this.redis.multi();
    if (gone.length > 0) tx.hdel(key, ...gone);
    const entries = Object.entries(repos).flatMap(([k, v]) => [RepoName.parse(k), JSON.stringify(InstalledRepo.parse(v))]);
    if (entries.length > 0) tx.hset(key, ...entries);
    await tx.exec();
    return gone.length;
  }
  /** Whether any installed repository belongs to this installation. */
  async hasInstallation(installationId: number): Promise<boolean> {
    return Object.values(await this.listInstalled()).some((v) => v.installationId === installationId);
  }
  async listInstalled(): Promise<Record<string, InstalledRepo>> {
    const raw = await this.redis.hgetall(this.key("installed"));
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, InstalledRepo.parse(JSON.parse(v))]));
  }

  /** Who a person on a source is on GitHub: `slack:U0123` → `dana`. The write-access check runs on that login. */
  async setIdentity(sourceUser: string, login: string): Promise<void> {
    await this.redis.hset(this.key("identities"), SourceKey.parse(sourceUser), GitHubLogin.parse(login));
  }
  async getIdentity(sourceUser: string): Promise<string | null> {
    return this.redis.hget(this.key("identities"), SourceKey.parse(sourceUser));
  }
  async removeIdentity(sourceUser: string): Promise<boolean> {
    return (await this.redis.hdel(this.key("identities"), SourceKey.parse(sourceUser))) === 1;
  }
  async listIdentities(): Promise<Record<string, string>> {
    return this.redis.hgetall(this.key("identities"));
  }

  /** The repository a Slack channel's or a Linear team's requests go to when the text names none. */
  async setSourceRepo(where: string, repo: string): Promise<void> {
    await this.redis.hset(this.key("source-repos"), SourceKey.parse(where), RepoName.parse(repo));
  }
  async getSourceRepo(where: string): Promise<string | null> {
    return this.redis.hget(this.key("source-repos"), SourceKey.parse(where));
  }
  async removeSourceRepo(where: string): Promise<boolean> {
    return (await this.redis.hdel(this.key("source-repos"), SourceKey.parse(where))) === 1;
  }
  async listSourceRepos(): Promise<Record<string, string>> {
    return this.redis.hgetall(this.key("source-repos"));
  }

  /** The head sha we last reviewed on a PR: `synchronize` re-reviews only PRs we reviewed before. */
  async getReviewedHead(pr: string): Promise<string | null> {
    return this.redis.hget(this.key("reviewed"), PrRef.parse(pr));
  }
  async setReviewedHead(pr: string, sha: string): Promise<void> {
    await this.redis.hset(this.key("reviewed"), PrRef.parse(pr), sha);
  }
}
