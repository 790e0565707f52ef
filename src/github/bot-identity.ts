import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { z } from "zod";
import type { JobSigner } from "../queue/job-provenance.js";
import type { GitPerson } from "../sandbox/workspace/identity.js";
import { keyer } from "../store/keys.js";
import type { Octokit } from "./app-auth.js";

/** What GitHub says the app's bot is: the app's slug and its bot user's id. */
const BotAccount = z.object({ slug: z.string().min(1), id: z.number().int().positive() });
type BotAccount = z.infer<typeof BotAccount>;

/** A day: the bot's id never changes, but an app can be renamed (its slug, and so its bot login, change). */
const CACHE_SECONDS = 86_400;

/**
 * The git author GitHub links to the app's bot account: `<slug>[bot]` with the noreply address
 * `<bot user id>+<slug>[bot]@users.noreply.github.com`. Without the id (GitHub unreachable) the address
 * is `<slug>[bot]@users.noreply.github.com`, which GitHub shows as a plain name, not linked to the bot.
 */
export function botGitPerson(slug: string, id: number | null): GitPerson {
  const login = `${slug}[bot]`;
  return { name: login, email: id === null ? `${login}@users.noreply.github.com` : `${id}+${login}@users.noreply.github.com` };
}

/** What the cache's seal covers: the app it is for and the account's exact JSON (another app's entry does not hold). */
const sealed = (appId: string, json: string): string => `${appId}\n${json}`;

/**
 * The app's bot as a git author. Read once from GitHub (`GET /app` for the slug, `GET /users/<slug>[bot]`
 * for the id) and cached in Redis for every worker: the account's JSON at `<prefix>:bot-account:<appId>`,
 * its MAC (`JobSigner.seal`, domain `bot-account v1`, bound to the app id) at `…:seal`. A cached account
 * whose seal does not hold (written by hand, or before the seal) is ignored with one warning and read
 * again from GitHub: it would be the author of every push. When GitHub cannot say (down, a GHES without
 * the endpoint), the commit is authored `<fallbackSlug>[bot]` with the id-less address, one warning is
 * logged, and nothing is cached: the next run asks again.
 */
export async function resolveBotIdentity(o: { octokit: Octokit; redis: Redis; prefix: string; appId: string; fallbackSlug: string; signer: JobSigner; log: Logger }): Promise<GitPerson> {
  const key = keyer(`${o.prefix}:bot-account`)(o.appId);
  const sealKey = `${key}:seal`;
  const [json = null, seal = null] = await o.redis.mget(key, sealKey);
  if (json !== null) {
    const cached = BotAccount.safeParse(parseJson(json));
    if (cached.success && seal !== null && o.signer.holds("bot-account v1", sealed(o.appId, json), seal)) return botGitPerson(cached.data.slug, cached.data.id);
    o.log.warn({ appId: o.appId }, "bot account cache ignored: its seal does not hold (written outside the worker, or altered); reading it from GitHub");
  }
  let account: BotAccount;
  try {
    account = await readBotAccount(o.octokit);
  } catch (err) {
    o.log.warn({ err: String(err), slug: o.fallbackSlug }, "cannot read the app's bot account from GitHub: commits are authored without the bot's id this run");
    return botGitPerson(o.fallbackSlug, null);
  }
  const fresh = JSON.stringify(account);
  await o.redis
    .multi()
    .set(key, fresh, "EX", CACHE_SECONDS)
    .set(sealKey, o.signer.seal("bot-account v1", sealed(o.appId, fresh)), "EX", CACHE_SECONDS)
    .exec();
  return botGitPerson(account.slug, account.id);
}

/** Through an installation's client: its auth signs `/app` with the app's JWT and `/users` with the installation token. */
async function readBotAccount(octokit: Octokit): Promise<BotAccount> {
  const { data } = await octokit.request("GET /app");
  const slug = data?.slug;
  if (!slug) throw new Error("GET /app returned no slug");
  const { data: user } = await octokit.request("GET /users/{username}", { username: `${slug}[bot]` });
  return BotAccount.parse({ slug, id: user.id });
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
