import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Logger } from "../logger.js";
import type { SettingsStore } from "../store/settings-store.js";
import type { SourceRegistry } from "./registry.js";
import type { SourceName } from "./source.js";

/** Pure: the `<source>:<where>` links (`settings source-repo`) that point at `repo`, one per source (the first by name), not `except`. */
export function linksForRepo(links: Record<string, string>, repo: string, except: string | null): Array<{ source: string; where: string; key: string }> {
  const mine = Object.entries(links)
    .filter(([, r]) => r.toLowerCase() === repo.toLowerCase())
    .map(([key]) => ({ key, source: key.slice(0, key.indexOf(":")), where: key.slice(key.indexOf(":") + 1) }))
    .filter((l) => l.source !== except)
    .sort((a, b) => a.key.localeCompare(b.key));
  return mine.filter((l, i) => mine.findIndex((m) => m.source === l.source) === i);
}

/**
 * The tools of the trackers a repository is linked to (`open-swe settings source-repo set jira:ENG o/r`),
 * for a run of that repository asked anywhere else (GitHub, the dashboard, another source): each source
 * that offers `linkedTools` gives its reads, and writes kept to the linked project or team.
 */
export async function linkedTrackerTools(o: { settings: SettingsStore; sources: SourceRegistry; repo: string; runSource: string | null; log: Logger }): Promise<StructuredToolInterface[]> {
  const links = linksForRepo(await o.settings.listSourceRepos(), o.repo, o.runSource);
  const tools: StructuredToolInterface[] = [];
  for (const link of links) {
    const source = o.sources.get(link.source as SourceName);
    if (!source?.configured) continue;
    const client = source.client(o.log);
    if (!client.linkedTools) continue;
    tools.push(...client.linkedTools(link.where));
    o.log.info({ link: link.key }, "linked tracker's tools added to the run");
  }
  return tools;
}
