import type { Redis } from "ioredis";
import { z } from "zod";
import { OpenSweError } from "../../errors.js";

export const MAX_STYLE_PROMPT_CHARS = 6000;

export const ReviewStyle = z.object({
  prompt: z.string().min(1).max(MAX_STYLE_PROMPT_CHARS),
  mode: z.enum(["bootstrap", "continual"]),
  version: z.number().int().positive(),
  updatedAt: z.string(),
});
export type ReviewStyle = z.infer<typeof ReviewStyle>;

export class StyleStoreError extends OpenSweError<"style_corrupt"> {}

/** The per-repo review-style prompt the analyzer writes and the reviewer appends to its own. */
export class StyleStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string = "",
  ) {}

  private key(repo: { owner: string; repo: string }): string {
    return `${this.prefix}review:style:${repo.owner}/${repo.repo}`;
  }

  async get(repo: { owner: string; repo: string }): Promise<ReviewStyle | null> {
    const raw = await this.redis.get(this.key(repo));
    if (raw === null) return null;
    try {
      return ReviewStyle.parse(JSON.parse(raw));
    } catch (cause) {
      throw new StyleStoreError("style_corrupt", `review style of ${repo.owner}/${repo.repo} is corrupt`, { cause });
    }
  }

  async save(repo: { owner: string; repo: string }, prompt: string, mode: ReviewStyle["mode"], now: Date = new Date()): Promise<ReviewStyle> {
    const previous = await this.get(repo);
    const style = ReviewStyle.parse({ prompt: prompt.trim(), mode, version: (previous?.version ?? 0) + 1, updatedAt: now.toISOString() });
    await this.redis.set(this.key(repo), JSON.stringify(style));
    return style;
  }
}

/** The appendix to the reviewer's system prompt; empty when the repo has no learned style yet. */
export function renderStyleAppendix(style: ReviewStyle | null): string {
  if (!style) return "";
  return `\n\n## Repository-specific review style\n\nLearned from this repository's own reviews (v${style.version}). Follow it where it does not conflict with the rules above.\n\n${style.prompt}\n`;
}
