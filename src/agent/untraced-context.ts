import { CallbackManager } from "@langchain/core/callbacks/manager";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";

const LC_CHILD_KEY = Symbol.for("lc:child_config");
const CONTEXT_VARIABLES_KEY = Symbol.for("lc:context_variables");
const TRACING_ENV = ["LANGSMITH_TRACING", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING", "LANGCHAIN_TRACING_V2"];

type RunWithConfig = (config: unknown, callback: () => unknown, avoidCreatingRootRunTree?: boolean) => unknown;
type Store = { extra?: Record<symbol, unknown>; tracingEnabled?: boolean; [CONTEXT_VARIABLES_KEY]?: unknown };

let installed = false;

/**
 * Without a tracer, @langchain/core still builds a disabled langsmith RunTree for every runnable it
 * invokes (a uuid7 from the OS random source, a timestamp, environment reads) only to carry the
 * config in async-local storage: ~8 runnables per graph step, ~7 % of a busy worker's CPU. With no
 * tracing configured in the environment and no tracer among the callbacks, this stores the same
 * config (and context variables) in a plain object instead; with a tracer it does what core does.
 */
export function installUntracedContext(env: NodeJS.ProcessEnv = process.env): void {
  if (installed || TRACING_ENV.some((k) => env[k] === "true")) return;
  installed = true;
  const provider = AsyncLocalStorageProviderSingleton as unknown as { runWithConfig: RunWithConfig; getInstance(): { getStore(): Store | undefined; run(store: unknown, cb: () => unknown): unknown } };
  const traced = provider.runWithConfig.bind(provider);
  provider.runWithConfig = (config, callback, avoidCreatingRootRunTree) => {
    const c = config as { callbacks?: never; tags?: string[]; metadata?: Record<string, unknown> } | undefined;
    const manager = CallbackManager._configureSync(c?.callbacks, undefined, c?.tags, undefined, c?.metadata);
    if (manager?.handlers.some((h) => h?.name === "langchain_tracer")) return traced(config, callback, avoidCreatingRootRunTree);
    const storage = provider.getInstance();
    const previous = storage.getStore();
    let store: Store | undefined = avoidCreatingRootRunTree ? undefined : { tracingEnabled: false, extra: { [LC_CHILD_KEY]: config } };
    if (previous?.[CONTEXT_VARIABLES_KEY] !== undefined) {
      store ??= {};
      store[CONTEXT_VARIABLES_KEY] = previous[CONTEXT_VARIABLES_KEY];
    }
    return storage.run(store, callback);
  };
}
