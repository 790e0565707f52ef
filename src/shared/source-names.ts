/** Every channel besides GitHub that people reach the agent from; a source's adapter lives in `src/sources/<name>/`. */
export const SOURCE_NAMES = ["slack", "linear", "jira", "confluence", "dashboard"] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];
