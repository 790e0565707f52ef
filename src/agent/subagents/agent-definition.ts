import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { checkModelId } from "../../config/check-model-id.js";

export const PermissionMode = z.enum(["always_confirm", "never_confirm", "confirm_risky"]);
export type PermissionMode = z.infer<typeof PermissionMode>;

const Names = (what: string, split: RegExp) =>
  z
    .union([z.string(), z.array(z.string({ error: `each ${what} is a name` }))], { error: `${what}s: a name or a list of names` })
    .transform((v) => (typeof v === "string" ? v.split(split) : v).map((s) => s.trim()).filter(Boolean));

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Seed 003's frontmatter keys; anything else is kept in `metadata`. */
const KNOWN_KEYS = [
  "name",
  "description",
  "tools",
  "skills",
  "model",
  "color",
  "max_iteration_per_run",
  "max_budget_per_run",
  "hooks",
  "mcp_config",
  "mcp_servers",
  "permission_mode",
  "condenser",
] as const;

export const AgentFrontmatter = z.object({
  name: z.string().regex(NAME, "letters, digits, _ . - (up to 64), starting with a letter or digit").optional(),
  description: z.string().default(""),
  /** One tool name or a list. */
  tools: Names("tool", /\s*,\s*/).optional(),
  /** A comma-separated string or a list. */
  skills: Names("skill", /\s*,\s*/).default([]),
  model: z
    .string()
    .min(1)
    .default("inherit")
    .superRefine((m, ctx) => {
      const refusal = m === "inherit" ? null : checkModelId(m);
      if (refusal) ctx.addIssue({ code: "custom", message: refusal });
    }),
  color: z.string().optional(),
  max_iteration_per_run: z.number().int().positive().optional(),
  max_budget_per_run: z.number().positive().optional(),
  hooks: z.record(z.string(), z.unknown()).optional(),
  mcp_config: z.record(z.string(), z.unknown()).optional(),
  /** Deprecated alias of `mcp_config`. */
  mcp_servers: z.record(z.string(), z.unknown()).optional(),
  /** Omitted: the parent's confirmation policy. */
  permission_mode: PermissionMode.optional(),
  /** Omitted: the default; `none`/`false` turns condensation off; a mapping configures it. */
  condenser: z.union([z.literal("none"), z.literal(false), z.record(z.string(), z.unknown())]).optional(),
});

export type Condenser = { kind: "default" } | { kind: "none" } | { kind: "custom"; config: Record<string, unknown> };

export interface AgentDefinition {
  name: string;
  description: string;
  /** Undefined: the file tools (ls, read_file, write_file, edit_file, delete, glob, grep, execute). */
  tools?: string[];
  skills: string[];
  /** `inherit` or a model id. */
  model: string;
  color?: string;
  maxIterationPerRun?: number;
  maxBudgetPerRun?: number;
  hooks?: Record<string, unknown>;
  mcpConfig?: Record<string, unknown>;
  permissionMode?: PermissionMode;
  condenser: Condenser;
  /** The `<example>…</example>` texts of the description. */
  whenToUseExamples: string[];
  /** Frontmatter keys outside the schema, as written. */
  metadata: Record<string, unknown>;
  /** The Markdown body: appended to the parent's system prompt. */
  prompt: string;
}

export class AgentParseError extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

const FRONTMATTER = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;
const EXAMPLE = /<example>([\s\S]*?)<\/example>/gi;

export function extractExamples(description: string): string[] {
  return [...description.matchAll(EXAMPLE)].map((m) => m[1]!.trim()).filter(Boolean);
}

/**
 * One agent file (pure): YAML frontmatter between `---` lines, then the prompt. `stem` is the file
 * name without `.md` (the default name). Throws AgentParseError with a reason a person can act on.
 */
export function parseAgentFile(text: string, stem: string): AgentDefinition {
  const body = text.replace(/^\uFEFF/, "");
  const fm = FRONTMATTER.exec(body);
  let raw: unknown = {};
  if (fm) {
    try {
      raw = parseYaml(fm[1] ?? "") ?? {};
    } catch (err) {
      throw new AgentParseError(`invalid YAML frontmatter: ${(err as Error).message.split("\n")[0]}`);
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new AgentParseError("the frontmatter is not a mapping of keys");
  } else if (/^---[ \t]*\r?\n/.test(body)) {
    throw new AgentParseError("the frontmatter has no closing --- line");
  }
  const parsed = AgentFrontmatter.safeParse(raw);
  if (!parsed.success) {
    throw new AgentParseError(parsed.error.issues.map((i) => `${i.path.join(".") || "frontmatter"}: ${i.message}`).join("; "));
  }
  const f = parsed.data;
  if (f.mcp_config && f.mcp_servers) throw new AgentParseError("mcp_config and mcp_servers (its deprecated alias) are both set: keep mcp_config");
  const name = f.name ?? stem;
  if (!NAME.test(name)) throw new AgentParseError(`name "${name}" (from the file name): letters, digits, _ . - (up to 64), starting with a letter or digit`);
  const record = raw as Record<string, unknown>;
  const metadata = Object.fromEntries(Object.entries(record).filter(([k]) => !(KNOWN_KEYS as readonly string[]).includes(k)));
  const mcp = f.mcp_config ?? f.mcp_servers;
  const condenser: Condenser = f.condenser === undefined ? { kind: "default" } : f.condenser === "none" || f.condenser === false ? { kind: "none" } : { kind: "custom", config: f.condenser };
  const def: AgentDefinition = {
    name,
    description: f.description.trim(),
    skills: f.skills,
    model: f.model,
    condenser,
    whenToUseExamples: extractExamples(f.description),
    metadata,
    prompt: (fm ? body.slice(fm[0].length) : body).trim(),
  };
  if (f.tools) def.tools = f.tools;
  if (f.color !== undefined) def.color = f.color;
  if (f.max_iteration_per_run !== undefined) def.maxIterationPerRun = f.max_iteration_per_run;
  if (f.max_budget_per_run !== undefined) def.maxBudgetPerRun = f.max_budget_per_run;
  if (f.hooks) def.hooks = f.hooks;
  if (mcp) def.mcpConfig = mcp;
  if (f.permission_mode) def.permissionMode = f.permission_mode;
  return def;
}
