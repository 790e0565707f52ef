/** The LangGraph thread id of the current run, from a middleware runtime or tool request. */
export function threadIdOf(runtime: { configurable?: { thread_id?: string } } | undefined, fallback?: string): string | undefined {
  return runtime?.configurable?.thread_id ?? fallback;
}
