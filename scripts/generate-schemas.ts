// `npm run schema`: writes schemas/open-swe.schema.json, schemas/schemastore-entry.json and .env.example from the
// zod schemas (test/config/generated-files.test.ts fails when a committed one is stale).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { envExample } from "../src/config/env-example.js";
import { REPO_CONFIG_SCHEMA_PATH, repoConfigJsonSchema, schemaStoreEntry } from "../src/config/repo-config-schema.js";

const root = join(import.meta.dirname, "..");
const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
writeFileSync(join(root, REPO_CONFIG_SCHEMA_PATH), json(repoConfigJsonSchema()));
writeFileSync(join(root, "schemas", "schemastore-entry.json"), json(schemaStoreEntry()));
writeFileSync(join(root, ".env.example"), envExample());
