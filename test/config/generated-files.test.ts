import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { envExample } from "../../src/config/env-example.js";
import { EnvSchema } from "../../src/config/env.js";
import { REPO_CONFIG_SCHEMA_PATH, repoConfigJsonSchema, schemaStoreEntry } from "../../src/config/repo-config-schema.js";
import { ROOT } from "../helpers/paths.js";

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const STALE = "stale: run `npm run schema` and commit what it writes";

describe("generated files (npm run schema)", () => {
  it("schemas/open-swe.schema.json, schemas/schemastore-entry.json and .env.example are what the schemas generate", () => {
    expect(JSON.parse(read(REPO_CONFIG_SCHEMA_PATH)), STALE).toEqual(repoConfigJsonSchema());
    expect(JSON.parse(read("schemas/schemastore-entry.json")), STALE).toEqual(schemaStoreEntry());
    expect(read(".env.example"), STALE).toBe(envExample());
  });

  it("the SchemaStore entry matches both spellings of the file", () => {
    expect(schemaStoreEntry()).toMatchObject({ name: "Open SWE", fileMatch: [".github/open-swe.yml", ".github/open-swe.yaml"], url: expect.stringMatching(/\/schemas\/open-swe\.schema\.json$/) });
  });

  it("the JSON Schema takes the README's example and refuses a typo and a wrong type, as the worker does", () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(repoConfigJsonSchema());
    const readme = read("README.md");
    const example = /### Per-repository config[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    expect(validate(parse(example!)), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ _extends: "org-config" })).toBe(true);
    expect(validate({ review: { atuo: true } })).toBe(false);
    expect(validate({ agent: { network: "yes" } })).toBe(false);
    const described = (repoConfigJsonSchema() as { properties: Record<string, { description?: string }> }).properties;
    for (const [key, p] of Object.entries(described)) expect(p.description, key).toBeTruthy();
  });

  it(".env.example lists every variable of the app's schema, with no credential's value", () => {
    const text = envExample();
    for (const name of Object.keys(EnvSchema.shape)) expect(text).toMatch(new RegExp(`^# ${name}=`, "m"));
    for (const line of text.split("\n").filter((l) => /credential/.test(l))) expect(line).toMatch(/^# [A-Z0-9_]+=  # a credential$/);
  });
});
