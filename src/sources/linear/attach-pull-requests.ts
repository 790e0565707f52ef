import { z } from "zod";
import type { LinearApi } from "./linear-api.js";

const PR_URL = /https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/pull\/\d+/g;

const LINK_URL = `mutation OpenSweAttachPullRequest($issueId: String!, $url: String!, $title: String) {
  attachmentLinkURL(issueId: $issueId, url: $url, title: $title) { success }
}`;

export function pullRequestUrls(markdown: string): string[] {
  return [...new Set(markdown.match(PR_URL) ?? [])];
}

/** Every GitHub PR link in a reply also becomes an attachment on the issue (Linear keeps one per URL). */
export async function attachPullRequests(api: LinearApi, issueId: string, markdown: string): Promise<string[]> {
  const urls = pullRequestUrls(markdown);
  for (const url of urls) {
    const title = `Pull request ${url.replace(/^https:\/\/github\.com\//, "").replace("/pull/", "#")}`;
    await api.request(LINK_URL, { issueId, url, title }, z.object({ attachmentLinkURL: z.object({ success: z.boolean() }) }));
  }
  return urls;
}
