import { z } from "zod";
import { REPO_CONFIG_PATH, RepoConfig } from "./repo-config.js";

/** Where the schema is committed (`npm run schema` writes it; a test fails when it is stale). */
export const REPO_CONFIG_SCHEMA_PATH = "schemas/open-swe.schema.json";

/** The JSON Schema of `.github/open-swe.yml`, from the zod schema the worker checks it with (as written: defaults are optional). */
export function repoConfigJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(RepoConfig, { io: "input", target: "draft-2020-12" }) as { properties: Record<string, unknown> };
  // Resolved by Probot's config loader before the zod schema sees the file.
  schema.properties["_extends"] = { type: "string", description: "Start from another repository's file: `other-repo` (same owner) or `owner/repo`, optionally `:path`" };
  return schema;
}

/**
 * Where SchemaStore will fetch the schema: the committed file's raw URL on the default branch. The repository's
 * public owner/name is not known here: replace `<owner>/<repo>` when submitting the entry.
 */
export const SCHEMA_URL = "https://raw.githubusercontent.com/<owner>/<repo>/main/schemas/open-swe.schema.json";

/** The SchemaStore catalog entry (its `src/api/json/catalog.json`), ready to submit with `SCHEMA_URL` filled in. */
export function schemaStoreEntry(schemaUrl = SCHEMA_URL): Record<string, unknown> {
  return {
    name: "Open SWE",
    description: `Open SWE repository configuration (${REPO_CONFIG_PATH})`,
    fileMatch: [".github/open-swe.yml", ".github/open-swe.yaml"],
    url: schemaUrl,
  };
}
