import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { z } from "zod";
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

/**
 * The app's bot as a git author. Read once from GitHub (`GET /app` for the slug, `GET /users/<slug>[bot]`
 * for the id) and cached in Redis for every worker. When GitHub cannot say (down, a GHES without the
 * endpoint), the commit is authored `<fallbackSlug>[bot]` with the id-less address, one warning is logged,
 * and nothing is cached: the next run asks again.
 */
export async function resolveBotIdentity(o: { octokit: Octokit; redis: Redis; prefix: string; appId: string; fallbackSlug: string; log: Logger }): Promise<GitPerson> {
  const key = keyer(`${o.prefix}:bot-account`)(o.appId);
  const cached = BotAccount.safeParse(parseJson(await o.redis.get(key)));
  if (cached.success) return botGitPerson(cached.data.slug, cached.data.id);
  let account: BotAccount;
  try {
    account = await readBotAccount(o.octokit);
  } catch (err) {
    o.log.warn({ err: String(err), slug: o.fallbackSlug }, "cannot read the app's bot account from GitHub: commits are authored without the bot's id this run");
    return botGitPerson(o.fallbackSlug, null);
  }
  await o.redis.set(key, JSON.stringify(account), "EX", CACHE_SECONDS);
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
