import type { Octokit } from "../github/app-auth.js";

/**
 * The one GitHub account whose public email is exactly `email`, or null. GitHub's search matches loosely,
 * so each hit's own profile is read back and compared; two accounts matching is no match.
 */
export async function loginForEmail(octokit: Octokit, email: string): Promise<string | null> {
  const want = email.trim().toLowerCase();
  const found = await octokit.request("GET /search/users", { q: `${want} in:email`, per_page: 5 });
  const matches: string[] = [];
  for (const item of found.data.items.slice(0, 5)) {
    const user = await octokit.request("GET /users/{username}", { username: item.login });
    if (user.data.email?.trim().toLowerCase() === want) matches.push(user.data.login);
  }
  return matches.length === 1 ? matches[0]! : null;
}
