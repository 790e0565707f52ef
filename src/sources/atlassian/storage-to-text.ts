const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Plain text of Confluence storage XHTML (a comment or page body) for the agent, plus the account ids it @-mentions. */
export function storageToText(xhtml: string, opts: { omitMention?: string } = {}): { text: string; mentionIds: string[] } {
  const mentionIds: string[] = [];
  const text = xhtml
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_, body: string) => body.replace(/</g, "&lt;").replace(/>/g, "&gt;"))
    .replace(/<ri:user\b[^>]*?ri:account-id="([^"]*)"[^>]*\/?>/g, (_, id: string) => {
      mentionIds.push(id);
      return id === opts.omitMention ? "" : `@${id}`;
    })
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<li\b[^>]*>/gi, "\n- ")
    .replace(/<\/(p|h[1-6]|li|ul|ol|blockquote|pre|tr|ac:structured-macro)>/gi, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (!e.startsWith("#")) return ENTITIES[e.toLowerCase()] ?? m;
      const code = /^#x/i.test(e) ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    })
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { text, mentionIds };
}
