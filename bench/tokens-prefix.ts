/** The parts of an Anthropic Messages request body that its prompt cache covers. */
export interface AnthropicBody {
  tools?: unknown[];
  system?: unknown;
  messages: Array<{ role: string; content: unknown }>;
}

/** cache_control marks where to cache; the provider's cache key is the content before it, not the mark. */
function withoutCacheControl(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, v: unknown) => (key === "cache_control" ? undefined : v));
}

/**
 * The request in the order the provider caches it (tools, then system, then messages), as the
 * serialised pieces it compares: each tool, each system block, each message's content blocks.
 */
export function cacheOrder(body: AnthropicBody): string[] {
  const pieces: string[] = [];
  for (const t of body.tools ?? []) pieces.push(JSON.stringify(withoutCacheControl(t)));
  const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : ((body.system as unknown[] | undefined) ?? []);
  for (const s of system) pieces.push(JSON.stringify(withoutCacheControl(s)));
  for (const m of body.messages) {
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as unknown[]);
    for (const [i, block] of blocks.entries()) pieces.push(`${i === 0 ? m.role : ""}${JSON.stringify(withoutCacheControl(block))}`);
  }
  return pieces;
}

/**
 * Bytes of `next` (in cache order) that sit in a prefix byte-identical to `prev`'s, counted in whole
 * pieces (the provider caches up to a block, never part of one).
 */
export function cachePrefixBytes(prev: AnthropicBody, next: AnthropicBody): { prefix: number; total: number } {
  const a = cacheOrder(prev);
  const b = cacheOrder(next);
  const total = b.reduce((n, p) => n + Buffer.byteLength(p), 0);
  let prefix = 0;
  for (let i = 0; i < b.length; i++) {
    if (a[i] !== b[i]) break;
    prefix += Buffer.byteLength(b[i]!);
  }
  return { prefix, total };
}

/** How many cache_control breakpoints a request sets (the API allows 4). */
export function cacheBreakpoints(body: AnthropicBody): number {
  return (JSON.stringify(body).match(/"cache_control":/g) ?? []).length;
}
