/** One scripted model turn, as a provider's HTTP answer will carry it: a text, a tool call, and the tokens it cost. */
export interface WireTurn {
  text?: string;
  toolCall?: { id: string; name: string; args: Record<string, unknown> };
  /** Uncached input, cache reads, cache writes (0 where the provider reports none), output. */
  usage: { input: number; cacheRead: number; cacheWrite: number; output: number };
}
