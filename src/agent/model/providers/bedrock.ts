import { ChatBedrockConverse, type ChatBedrockConverseCallOptions } from "@langchain/aws";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { claudeModelOf } from "../../../config/model-table.js";
import { providerRequirement } from "../../../config/provider-requirements.js";
import { OpenSweError } from "../../../errors.js";
import { claudeThinking } from "./anthropic-thinking.js";
import type { ModelProvider } from "./types.js";

type ConverseFields = Exclude<ConstructorParameters<typeof ChatBedrockConverse>[0], string | undefined>;

/**
 * Bedrock's Converse API with a cache point after the system prompt, the tools and the last message on
 * every call (Claude caches the prefix up to each; at most 4 a request), as Anthropic's API gets
 * `cache_control` from deepagents. Calls are not streamed: Converse answers in one JSON body.
 */
class CachingBedrockConverse extends ChatBedrockConverse {
  override async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const cached: ChatBedrockConverseCallOptions = { ...options, cache_control: options.cache_control ?? { type: "ephemeral" } };
    return super._generate(messages, cached as this["ParsedCallOptions"], runManager);
  }
}

/** Claude (or another Converse model) on AWS Bedrock: `bedrock:<model id or inference profile>`. */
export const bedrockProvider: ModelProvider<"bedrock"> = {
  id: "bedrock",
  label: "AWS Bedrock",
  env: ["AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"],
  images: true,
  nativeTools: true,
  // Claude's thinking goes in `additionalModelRequestFields`, in the Messages API's own shape.
  effortParams: (rule, effort) => {
    const { maxTokens: _, ...params } = claudeThinking(rule, effort);
    return params;
  },
  price: (rule) => rule.price,
  async create({ modelId, name, rule, effort, config, maxRetries }) {
    const missing = providerRequirement("bedrock", modelId, config);
    if (missing) throw new OpenSweError("model_not_configured", missing);
    const { maxTokens, ...thinking } = claudeThinking(rule, effort);
    const claude = claudeModelOf(name) !== undefined;
    const Model = claude ? CachingBedrockConverse : ChatBedrockConverse;
    return new Model({
      model: name,
      region: config.awsRegion as string,
      // Keys from the environment when set; otherwise the SDK's default chain (profile, web identity, container, instance).
      ...(config.awsCredentials ? { credentials: config.awsCredentials } : {}),
      maxTokens,
      streaming: false,
      disableStreaming: true,
      // HTTP/1.1: the client's default HTTP/2 handler is for bidirectional streams, which Converse does not use.
      clientOptions: { maxAttempts: maxRetries + 1, requestHandler: new NodeHttpHandler() },
      ...(thinking.thinking ? { additionalModelRequestFields: thinking as unknown as NonNullable<ConverseFields["additionalModelRequestFields"]> } : {}),
    });
  },
};
