import { z } from "zod";
import { isSecretName } from "./env-refusal.js";
import { EnvSchema } from "./env.js";
import { ModelEnv } from "./model-config.js";
import { SandboxEnv } from "./sandbox-config.js";

interface Property {
  type?: string;
  enum?: unknown[];
  default?: unknown;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
}

/** The readers, in the order `readConfig` reads them; a variable two read is listed once, under the first. */
const READERS: Array<[string, z.ZodObject]> = [
  ["The app (src/config/env.ts)", EnvSchema],
  ["Sandboxes (src/config/sandbox-config.ts)", SandboxEnv],
  ["Models (src/config/model-config.ts)", ModelEnv],
];

/** Variables read without a schema of their own (src/config/web-search-config.ts, MCP secrets). */
const OTHERS = [
  "# Web search (src/config/web-search-config.ts): the first key set picks the vendor; none leaves web_search out",
  "# TAVILY_API_KEY=",
  "# BRAVE_SEARCH_API_KEY=",
  "",
  "# MCP header secrets of the team's servers: MCP_SECRET_<NAME>, used as ${NAME} in a header value",
  "# MCP_SECRET_DOCS_TOKEN=",
];

function what(p: Property): string {
  if (p.enum) return `one of ${p.enum.join(", ")}`;
  if (p.format === "uri") return "a URL";
  if (p.pattern) return `matching ${p.pattern}`;
  if (p.type === "integer" || p.type === "number") return `${p.type === "integer" ? "a whole number" : "a number"}${p.minimum !== undefined ? ` ${p.minimum}–${p.maximum ?? "…"}` : ""}`;
  return "text";
}

/**
 * `.env.example`: every variable the readers know, commented out with its default (a credential: empty, marked),
 * from the same schemas the roles parse. `npm run schema` writes it; a test fails when it is stale.
 */
export function envExample(): string {
  const seen = new Set<string>(["PATH"]);
  const lines = [
    "# Open SWE: every setting it reads from the environment (or ./.env), generated from the schemas by `npm run schema`.",
    "# Each line is commented out with its default; set what you need. README → Configuration says what each does.",
    "# `open-swe config check` checks the result without starting anything.",
    "",
  ];
  for (const [title, schema] of READERS) {
    lines.push(`# ${title}`);
    const props = (z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as { properties: Record<string, Property> }).properties;
    for (const [name, p] of Object.entries(props)) {
      if (seen.has(name)) continue;
      seen.add(name);
      const secret = isSecretName(name);
      lines.push(`# ${name}=${secret || p.default === undefined ? "" : String(p.default)}${secret ? "  # a credential" : `  # ${what(p)}`}`);
    }
    lines.push("");
  }
  return `${[...lines, ...OTHERS].join("\n")}\n`;
}
