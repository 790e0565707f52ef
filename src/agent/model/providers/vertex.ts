import { ChatAnthropic } from "@langchain/anthropic";
import { AnthropicVertex } from "@anthropic-ai/vertex-sdk";
import { GoogleAuth } from "google-auth-library";
import { providerRequirement } from "../../../config/provider-requirements.js";
import { OpenSweError } from "../../../errors.js";
import { claudeThinking } from "./anthropic-thinking.js";
import type { ModelProvider } from "./types.js";

/**
 * Claude on Google Vertex AI: `vertex:<model>` (claude-sonnet-4-5@20250929) in `GOOGLE_CLOUD_PROJECT` and
 * `GOOGLE_CLOUD_LOCATION`, with Application Default Credentials (or `GOOGLE_APPLICATION_CREDENTIALS`).
 * The Messages API body is Anthropic's own, so it is a ChatAnthropic over Anthropic's Vertex client:
 * thinking, effort and deepagents' prompt caching carry over unchanged.
 */
export const vertexProvider: ModelProvider<"vertex"> = {
  id: "vertex",
  label: "Google Vertex AI (Claude)",
  env: ["GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_APPLICATION_CREDENTIALS"],
  images: true,
  nativeTools: true,
  effortParams: (rule, effort) => {
    const { maxTokens: _, ...params } = claudeThinking(rule, effort);
    return params;
  },
  price: (rule) => rule.price,
  async create({ modelId, name, rule, effort, config, maxRetries }) {
    const missing = providerRequirement("vertex", modelId, config);
    if (missing) throw new OpenSweError("model_not_configured", missing);
    const googleAuth = new GoogleAuth({ scopes: "https://www.googleapis.com/auth/cloud-platform", ...(config.googleCredentialsFile ? { keyFilename: config.googleCredentialsFile } : {}) });
    const { thinking, output_config, maxTokens } = claudeThinking(rule, effort);
    return new ChatAnthropic({
      model: name,
      maxRetries,
      maxTokens,
      streaming: true,
      // ChatAnthropic hands its client options (an apiKey among them, which Vertex refuses) to this.
      createClient: (clientOptions) => {
        const { apiKey: _key, authToken: _token, ...options } = clientOptions as Record<string, unknown>;
        return new AnthropicVertex({ ...options, projectId: config.googleCloudProject as string, region: config.vertexRegion as string, googleAuth });
      },
      ...(output_config ? { thinking: { type: "adaptive" as const }, outputConfig: { effort: output_config.effort } } : {}),
      ...(thinking?.type === "enabled" ? { thinking: { type: "enabled" as const, budget_tokens: thinking.budget_tokens } } : {}),
    });
  },
};
