import { parseDocument } from "yaml";
import { REPO_CONFIG_PATH, RepoConfig } from "./repo-config.js";

/**
 * Pure: the problems of a `.github/open-swe.yml` text, one line each naming the field
 * (`agent.network: Invalid input: expected boolean, received string`); empty when the file is valid.
 */
export function repoFileProblems(text: string): string[] {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return doc.errors.map((e) => `${REPO_CONFIG_PATH} is not YAML: ${e.message.split("\n")[0]}`);
  const raw: unknown = doc.toJS() ?? {};
  // `_extends` (another repository's file to start from) is resolved by Probot's loader before the schema sees the file.
  const { _extends: _, ...own } = typeof raw === "object" && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : { _extends: undefined };
  const parsed = RepoConfig.safeParse(typeof raw === "object" && raw !== null && !Array.isArray(raw) ? own : raw);
  if (parsed.success) return [];
  return parsed.error.issues.flatMap((i) => {
    const at = i.path.join(".") || "(root)";
    // An unknown key: name each one where it is (`review.atuo`), the way a typo is found.
    if (i.code === "unrecognized_keys") return i.keys.map((k) => `${at === "(root)" ? k : `${at}.${k}`}: unknown key (see schemas/open-swe.schema.json)`);
    return [`${at}: ${i.message}`];
  });
}
