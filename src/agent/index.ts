// The agent's public surface for jobs/agent and the CLI; import from here, not from deep paths.
export { RedisSaver, type RedisSaverOptions } from "./checkpoint/redis-saver.js";
export { createOpenSweAgent, type CreateOpenSweAgentOptions } from "./create-agent.js";
export { buildAgentMiddleware, type AgentMiddlewareDeps } from "./middleware/build-agent-middleware.js";
export { DEFAULT_PUSH_TOOLS, DEFAULT_REPLY_TOOLS, SIDE_EFFECT_TOOLS } from "./side-effect-tools.js";
export { CONFIRMING_COMPLETION_TOOL, NO_OP_TOOL } from "./middleware/ensure-no-empty-message.js";
export type { AgentStatus } from "./middleware/source-status.js";
export { STEP_LIMIT_TEXT } from "./middleware/step-limit-notice.js";
export * from "./model/index.js";
export { DEFAULT_PROMPTS_DIR, loadPrompts, renderPrompt, renderTemplate, type PromptName, type PromptVars } from "./prompts.js";
export { buildRunRecord, formatRunSummary, type BuildRunRecordInput } from "./run-record.js";
export { RunOutcome, RunRecord } from "../shared/run-record.js";
export { createFetchUrlTool } from "./tools/fetch-url-tool.js";
export { HttpGuardError, guardedFetch, resolvePublicUrl, systemLookup, type GuardedFetchOptions, type GuardedResponse, type LookupAll } from "../net/http-guard.js";
export { createHttpRequestTool, type HttpToolDeps } from "./tools/http-request-tool.js";
export { createWebSearchProvider, readWebSearchConfig, type WebSearchConfig } from "./tools/web-search/create-web-search-provider.js";
export type { WebSearchProvider, WebSearchResult } from "./tools/web-search/types.js";
export { createWebSearchTool } from "./tools/web-search-tool.js";
