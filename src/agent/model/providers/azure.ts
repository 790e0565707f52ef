import { AzureChatOpenAI } from "@langchain/openai";
import { providerRequirement } from "../../../config/provider-requirements.js";
import { OpenSweError } from "../../../errors.js";
import { openaiReasoning } from "./openai.js";
import type { ModelProvider } from "./types.js";

/** The API version when AZURE_OPENAI_API_VERSION is unset: Azure OpenAI's GA data-plane version. */
export const AZURE_DEFAULT_API_VERSION = "2024-10-21";

/** An Azure OpenAI deployment: `azure:<deployment>` at `AZURE_OPENAI_ENDPOINT` with `AZURE_OPENAI_API_KEY`. */
export const azureProvider: ModelProvider<"azure"> = {
  id: "azure",
  label: "Azure OpenAI",
  env: ["AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_API_VERSION"],
  images: true,
  nativeTools: true,
  effortParams: openaiReasoning,
  price: (rule) => rule.price,
  async create({ modelId, name, rule, effort, config, maxRetries }) {
    const missing = providerRequirement("azure", modelId, config);
    if (missing) throw new OpenSweError("model_not_configured", missing);
    return new AzureChatOpenAI({
      // The deployment's name is the model LangChain reasons about (a gpt-5 deployment takes reasoning effort).
      model: name,
      azureOpenAIEndpoint: config.azureEndpoint as string,
      azureOpenAIApiKey: config.azureApiKey as string,
      azureOpenAIApiDeploymentName: name,
      azureOpenAIApiVersion: config.azureApiVersion ?? AZURE_DEFAULT_API_VERSION,
      maxRetries,
      ...openaiReasoning(rule, effort),
    });
  },
};
