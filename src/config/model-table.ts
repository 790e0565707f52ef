/** Reasoning effort, from none to the most a model offers. The order matters: clamping walks down it. */
export const EFFORTS = ["none", "low", "medium", "high", "xhigh", "max"] as const;
export type Effort = (typeof EFFORTS)[number];

/** The model providers, by the prefix of their ids (`bedrock:<model>`). Each has a file in src/agent/model/providers/. */
export const PROVIDERS = ["anthropic", "openai", "bedrock", "azure", "vertex", "gemini", "replay"] as const;
export type Provider = (typeof PROVIDERS)[number];

/** Providers whose names are the operator's own (a deployment, an inference profile): any name is accepted after the prefix. */
export const OPEN_PROVIDERS: readonly Provider[] = ["openai", "bedrock", "azure", "vertex", "gemini"];

/**
 * How a model takes reasoning effort:
 * - `adaptive`: Anthropic adaptive thinking plus `output_config.effort`
 * - `budget`: Anthropic extended thinking with a token budget per effort
 * - `openai-reasoning`: OpenAI `reasoning.effort`
 * - `gemini-thinking`: Gemini's `thinkingConfig.thinkingBudget` per effort
 * - `none`: the model takes no effort setting
 */
export type EffortMode = "adaptive" | "budget" | "openai-reasoning" | "gemini-thinking" | "none";

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface ModelRule {
  provider: Provider;
  mode: EffortMode;
  efforts: readonly Effort[];
  defaultEffort: Effort;
  maxTokens: number;
  price?: ModelPrice;
  /** The fallback used on overload/5xx when the deployment names none. */
  defaultFallback?: string;
}

const SONNET_PRICE: ModelPrice = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const OPUS_PRICE: ModelPrice = { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 };
const HAIKU_PRICE: ModelPrice = { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 };
const ADAPTIVE: readonly Effort[] = ["none", "low", "medium", "high", "xhigh", "max"];
const BUDGET: readonly Effort[] = ["none", "low", "medium", "high"];

/** The one table of supported models: which efforts each accepts, how, and what it costs. */
export const MODEL_RULES: Readonly<Record<string, ModelRule>> = {
  "anthropic:claude-opus-4-8": {
    provider: "anthropic",
    mode: "adaptive",
    efforts: ADAPTIVE,
    defaultEffort: "high",
    maxTokens: 32_000,
    price: OPUS_PRICE,
    defaultFallback: "anthropic:claude-sonnet-4-6",
  },
  "anthropic:claude-opus-4-7": {
    provider: "anthropic",
    mode: "adaptive",
    efforts: ADAPTIVE,
    defaultEffort: "high",
    maxTokens: 32_000,
    price: OPUS_PRICE,
    defaultFallback: "anthropic:claude-sonnet-4-6",
  },
  "anthropic:claude-opus-4-6": {
    provider: "anthropic",
    mode: "adaptive",
    efforts: ADAPTIVE,
    defaultEffort: "high",
    maxTokens: 32_000,
    price: OPUS_PRICE,
    defaultFallback: "anthropic:claude-sonnet-4-6",
  },
  "anthropic:claude-sonnet-4-6": {
    provider: "anthropic",
    mode: "adaptive",
    efforts: ["none", "low", "medium", "high"],
    defaultEffort: "medium",
    maxTokens: 32_000,
    price: SONNET_PRICE,
    defaultFallback: "anthropic:claude-sonnet-4-5",
  },
  "anthropic:claude-opus-4-5": {
    provider: "anthropic",
    mode: "budget",
    efforts: BUDGET,
    defaultEffort: "medium",
    maxTokens: 32_000,
    price: OPUS_PRICE,
    defaultFallback: "anthropic:claude-sonnet-4-5",
  },
  "anthropic:claude-sonnet-4-5": { provider: "anthropic", mode: "budget", efforts: BUDGET, defaultEffort: "medium", maxTokens: 32_000, price: SONNET_PRICE },
  "anthropic:claude-haiku-4-5": { provider: "anthropic", mode: "budget", efforts: BUDGET, defaultEffort: "none", maxTokens: 16_000, price: HAIKU_PRICE },
  "openai:gpt-5": {
    provider: "openai",
    mode: "openai-reasoning",
    efforts: ["none", "low", "medium", "high"],
    defaultEffort: "medium",
    maxTokens: 32_000,
    price: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
  },
  "gemini:gemini-2.5-pro": {
    provider: "gemini",
    mode: "gemini-thinking",
    efforts: ["low", "medium", "high"],
    defaultEffort: "medium",
    maxTokens: 32_000,
    price: { input: 1.25, output: 10, cacheRead: 0.31, cacheWrite: 1.25 },
  },
  "gemini:gemini-2.5-flash": {
    provider: "gemini",
    mode: "gemini-thinking",
    efforts: ["none", "low", "medium", "high"],
    defaultEffort: "low",
    maxTokens: 32_000,
    price: { input: 0.3, output: 2.5, cacheRead: 0.075, cacheWrite: 0.3 },
  },
};

/** Thinking budget per effort for `budget`-mode models; max_tokens is raised above it. */
export const THINKING_BUDGET: Readonly<Record<Effort, number>> = { none: 0, low: 2_048, medium: 8_192, high: 16_384, xhigh: 16_384, max: 16_384 };

export const BUILTIN_DEFAULT_MODEL = "anthropic:claude-sonnet-4-6";

/** A self-hoster's unknown model through an OpenAI-compatible endpoint: no effort knob, no price. */
const UNKNOWN_OPENAI: ModelRule = { provider: "openai", mode: "none", efforts: ["none"], defaultEffort: "none", maxTokens: 16_000 };
const UNKNOWN_ANTHROPIC: ModelRule = { provider: "anthropic", mode: "none", efforts: ["none"], defaultEffort: "none", maxTokens: 16_000 };
const UNKNOWN_OPEN = (provider: Provider): ModelRule => ({ provider, mode: "none", efforts: ["none"], defaultEffort: "none", maxTokens: 16_000 });
const REPLAY: ModelRule = { provider: "replay", mode: "none", efforts: ["none"], defaultEffort: "none", maxTokens: 0 };

/** Canonical `provider:name` for an id: a bare `claude-*` is Anthropic, a bare `gemini-*` Gemini, any other bare name OpenAI-compatible. */
export function canonicalModelId(id: string): string {
  const trimmed = id.trim();
  const colon = trimmed.indexOf(":");
  const provider = colon > 0 ? trimmed.slice(0, colon) : trimmed.startsWith("claude-") ? "anthropic" : trimmed.startsWith("gemini-") ? "gemini" : "openai";
  const name = colon > 0 ? trimmed.slice(colon + 1) : trimmed;
  return `${provider}:${name}`;
}

export function providerOf(modelId: string): Provider | undefined {
  const provider = canonicalModelId(modelId).split(":")[0];
  return (PROVIDERS as readonly string[]).includes(provider ?? "") ? (provider as Provider) : undefined;
}

/**
 * The Claude model a cloud's id names, as Anthropic's API calls it: Bedrock's
 * `us.anthropic.claude-sonnet-4-5-20250929-v1:0` (an inference profile: a region group before it) and
 * Vertex's `claude-sonnet-4-5@20250929` are `claude-sonnet-4-5`. Undefined for anything else (an ARN).
 */
export function claudeModelOf(name: string): string | undefined {
  const m = /^(?:(?:[a-z]{2,6})\.)?(?:anthropic\.)?(claude-[a-z0-9-]+?)(?:-\d{8})?(?:-v\d+(?::\d+)?)?(?:@[\w-]+)?$/.exec(name);
  return m?.[1];
}

/** The rule of the Claude model a cloud serves, under that cloud's provider; no fallback of Anthropic's own (the operator names one). */
function cloudClaudeRule(provider: Provider, name: string): ModelRule {
  const claude = claudeModelOf(name);
  const rule = claude ? MODEL_RULES[`anthropic:${claude}`] : undefined;
  if (!rule) return { ...UNKNOWN_ANTHROPIC, provider };
  const { defaultFallback: _, ...rest } = rule;
  return { ...rest, provider };
}

/** The rule for a model id; unknown ids of a known provider get a conservative rule. */
export function modelRule(modelId: string): ModelRule | undefined {
  const id = canonicalModelId(modelId);
  // Dated Anthropic snapshots (claude-sonnet-4-5-20250929) follow their family's rule.
  const known = MODEL_RULES[id] ?? MODEL_RULES[id.replace(/-\d{8}$/, "")];
  if (known) return known;
  const name = vendorModelName(id);
  switch (providerOf(id)) {
    case "anthropic":
      return UNKNOWN_ANTHROPIC;
    case "openai":
      return UNKNOWN_OPENAI;
    case "bedrock":
    case "vertex":
      return cloudClaudeRule(providerOf(id) as Provider, name);
    case "azure": {
      // A deployment named after the OpenAI model it serves (gpt-5) takes that model's effort and price.
      const openai = MODEL_RULES[`openai:${name}`];
      return openai ? { ...openai, provider: "azure" } : UNKNOWN_OPEN("azure");
    }
    case "gemini":
      return UNKNOWN_OPEN("gemini");
    case "replay":
      return REPLAY;
    default:
      return undefined;
  }
}

/** Name after the provider prefix, as the vendor API wants it. */
export function vendorModelName(modelId: string): string {
  const id = canonicalModelId(modelId);
  return id.slice(id.indexOf(":") + 1);
}
