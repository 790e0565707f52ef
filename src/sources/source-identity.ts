import type { Octokit } from "../github/app-auth.js";
import type { SettingsStore } from "../store/settings-store.js";
import { loginForEmail } from "./email-login.js";
import type { SourceClient, SourceName, SourceUser } from "./source.js";

/** What is known of a source user's GitHub identity before a repository (and its installation) is: a mapping, or a confirmed email to look up. */
export type SourceIdentity = { login: string } | { email: string };

/** The operator's mapping (`settings identity`), else the source's confirmed email; null: nobody we can name. */
export async function sourceIdentity(settings: SettingsStore, client: SourceClient, source: SourceName, user: SourceUser): Promise<SourceIdentity | null> {
  const login = await settings.getIdentity(`${source}:${user.id}`);
  if (login) return { login };
  const email = (await client.verifiedEmail?.(user)) ?? null;
  return email ? { email } : null;
}

/** The GitHub login: the mapped one, or the one account whose public email is the confirmed email. */
export async function identityLogin(identity: SourceIdentity, octokit: Octokit): Promise<string | null> {
  return "login" in identity ? identity.login : loginForEmail(octokit, identity.email);
}
