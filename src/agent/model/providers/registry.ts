import type { Provider } from "../../../config/model-table.js";
import { anthropicProvider } from "./anthropic.js";
import { azureProvider } from "./azure.js";
import { bedrockProvider } from "./bedrock.js";
import { geminiProvider } from "./gemini.js";
import { openaiProvider } from "./openai.js";
import { replayProvider } from "./replay.js";
import type { ModelProvider } from "./types.js";
import { vertexProvider } from "./vertex.js";

/** Every provider of PROVIDERS, by id: the compiler refuses a missing one or one filed under another's id. */
const BY_ID: { readonly [P in Provider]: ModelProvider<P> } = {
  anthropic: anthropicProvider,
  openai: openaiProvider,
  bedrock: bedrockProvider,
  azure: azureProvider,
  vertex: vertexProvider,
  gemini: geminiProvider,
  replay: replayProvider,
};

export const MODEL_PROVIDERS: ReadonlyMap<Provider, ModelProvider> = new Map(Object.entries(BY_ID) as Array<[Provider, ModelProvider]>);

export function modelProvider(id: Provider): ModelProvider {
  return BY_ID[id];
}
