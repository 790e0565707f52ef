import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ModelConfig } from "../../../config/model-config.js";
import type { Effort, ModelPrice, ModelRule, Provider } from "../../../config/model-table.js";

/** What `create` is handed: the model's name after the prefix, its rule, the effort chosen, the env. */
export interface CreateModelInput {
  /** The model id (`bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0`), for messages. */
  modelId: string;
  /** The name after the prefix, as the vendor API wants it. */
  name: string;
  rule: ModelRule;
  effort: Effort;
  config: ModelConfig;
  /** Retries inside the vendor SDK before the fallback model takes over. */
  maxRetries: number;
}

/**
 * One model provider: the `<id>:` prefix of its model ids, what it needs from the environment, how it
 * builds a chat model, what a model's tokens cost (cache reads and writes at its own cache price) and
 * how effort maps onto its own parameters. Adding one = a file here + a line in the registry + the
 * conformance suite (test/agent/model/providers/) passing for it.
 */
export interface ModelProvider<P extends Provider = Provider> {
  readonly id: P;
  /** A human name for docs and refusals. */
  readonly label: string;
  /** The variables it reads (names only). */
  readonly env: readonly string[];
  /** Can a request carry images? If not, screenshots are described, not sent. */
  readonly images: boolean;
  /** Does it call tools natively (a `tools` parameter and structured calls back)? */
  readonly nativeTools: boolean;
  /**
   * Builds the chat model. Throws `OpenSweError("model_not_configured")` naming what to set when a
   * setting is missing, so a run never starts only to die on its first call.
   */
  create(input: CreateModelInput): Promise<BaseChatModel>;
  /** The vendor's own parameters for an effort (empty when the model takes none). */
  effortParams(rule: ModelRule, effort: Effort): Record<string, unknown>;
  /** USD per million tokens (cache reads and writes at the provider's cache price); undefined: unknown. */
  price(rule: ModelRule): ModelPrice | undefined;
}
