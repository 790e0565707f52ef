import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Provider } from "./model-table.js";

/** What a cloud provider's settings came to: enough to build its client, never logged (keys inside). */
export interface CloudModelConfig {
  /** `AWS_REGION` (or `AWS_DEFAULT_REGION`): where Bedrock is called. */
  awsRegion?: string;
  /** `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`); else the SDK's own chain finds them. */
  awsCredentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Which link of the AWS credential chain is there (env, profile, web identity, container, shared file, metadata); unset: none. */
  awsCredentialSource?: string;
  /** `AZURE_OPENAI_ENDPOINT`: https://<resource>.openai.azure.com */
  azureEndpoint?: string;
  azureApiKey?: string;
  /** `AZURE_OPENAI_API_VERSION` (default 2024-10-21). */
  azureApiVersion?: string;
  /** `GOOGLE_CLOUD_PROJECT` and `GOOGLE_CLOUD_LOCATION` (the Vertex region). */
  googleCloudProject?: string;
  vertexRegion?: string;
  /** `GOOGLE_APPLICATION_CREDENTIALS`: a service account's JSON key; unset, Application Default Credentials find one. */
  googleCredentialsFile?: string;
  /** `GEMINI_API_KEY` (or `GOOGLE_API_KEY`): a Google AI Studio key. */
  geminiApiKey?: string;
}

/**
 * Which link of the AWS SDK's default credential chain the environment offers, or undefined: keys, a
 * profile, a web identity (EKS), a container's endpoint (ECS), a shared credentials file, or the instance's
 * metadata service when the operator says so (`AWS_EC2_METADATA_DISABLED=false`: it cannot be probed at start-up).
 */
export function awsCredentialSource(env: Record<string, string | undefined>): string | undefined {
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) return "environment keys";
  if (env.AWS_BEARER_TOKEN_BEDROCK) return "Bedrock API key";
  if (env.AWS_PROFILE) return `profile ${env.AWS_PROFILE}`;
  if (env.AWS_WEB_IDENTITY_TOKEN_FILE && env.AWS_ROLE_ARN) return "web identity";
  if (env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI || env.AWS_CONTAINER_CREDENTIALS_FULL_URI) return "container credentials";
  const home = env.HOME;
  const file = env.AWS_SHARED_CREDENTIALS_FILE ?? (home ? join(home, ".aws", "credentials") : undefined);
  if (file && existsSync(file)) return "shared credentials file";
  if (env.AWS_EC2_METADATA_DISABLED?.toLowerCase() === "false") return "instance metadata";
  return undefined;
}

/**
 * Pure: what a cloud provider still needs before a run can call it — one line naming what to set — or
 * null. Anthropic's and OpenAI's own APIs are not checked here (a run without their key says so itself).
 */
export function providerRequirement(provider: Provider, modelId: string, c: CloudModelConfig): string | null {
  const needs = (what: string) => `model ${modelId} needs ${what}`;
  switch (provider) {
    case "bedrock":
      if (!c.awsRegion) return needs("AWS_REGION (the Bedrock region, e.g. us-east-1), which is not set");
      if (!c.awsCredentialSource) {
        return needs(
          "AWS credentials, and none were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN, or AWS_EC2_METADATA_DISABLED=false for an instance role",
        );
      }
      return null;
    case "azure":
      if (!c.azureEndpoint) return needs("AZURE_OPENAI_ENDPOINT (https://<resource>.openai.azure.com), which is not set");
      if (!c.azureApiKey) return needs("AZURE_OPENAI_API_KEY, which is not set");
      return null;
    case "vertex":
      if (!c.googleCloudProject) return needs("GOOGLE_CLOUD_PROJECT, which is not set");
      if (!c.vertexRegion) return needs("GOOGLE_CLOUD_LOCATION (the Vertex region, e.g. us-east5 or global), which is not set");
      return null;
    case "gemini":
      return c.geminiApiKey ? null : needs("GEMINI_API_KEY (a Google AI Studio key), which is not set");
    default:
      return null;
  }
}
