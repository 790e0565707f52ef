import { Lexer, type MarkedToken, type Tokens } from "marked";

export type { MarkedToken, Tokens };

/**
 * The one Markdown lexer every renderer of ours reads (ADF for Jira and Confluence, Slack mrkdwn): marked's,
 * GitHub-flavoured (tables, strike, bare URLs, task items), a single newline a line break as the agent means it.
 * An extension's token (none is installed) would be left out by the renderers.
 */
export function lexMarkdown(markdown: string): MarkedToken[] {
  return new Lexer({ gfm: true, breaks: true }).lex(markdown) as MarkedToken[];
}

/** Inline or child tokens, as the renderers switch on them. */
export const children = (tokens: readonly unknown[] | undefined): MarkedToken[] => (tokens ?? []) as MarkedToken[];

/** A task item's box, as text. */
export const taskMark = (t: Tokens.Checkbox): string => (t.checked ? "☑ " : "☐ ");
