/**
 * Plain text of an ADF document as Jira returns it (any node we don't know contributes its children), plus who
 * it @-mentions; mentions of `omitMention` (the bot itself) are counted but left out of the text.
 */
export function adfToText(doc: unknown, opts: { omitMention?: string } = {}): { text: string; mentionIds: string[] } {
  const mentionIds: string[] = [];
  const walk = (node: unknown, depth: number): string => {
    if (depth > 64 || typeof node !== "object" || node === null) return "";
    const n = node as { type?: unknown; text?: unknown; attrs?: Record<string, unknown>; content?: unknown };
    const children = () => (Array.isArray(n.content) ? n.content.map((c) => walk(c, depth + 1)).join("") : "");
    switch (n.type) {
      case "text":
        return typeof n.text === "string" ? n.text : "";
      case "hardBreak":
        return "\n";
      case "mention": {
        const id = typeof n.attrs?.id === "string" ? n.attrs.id : "";
        if (id) mentionIds.push(id);
        if (id && id === opts.omitMention) return "";
        return typeof n.attrs?.text === "string" ? n.attrs.text : `@${id}`;
      }
      case "emoji":
        return typeof n.attrs?.text === "string" ? n.attrs.text : "";
      case "inlineCard":
      case "blockCard":
        return typeof n.attrs?.url === "string" ? n.attrs.url : "";
      case "paragraph":
      case "heading":
        return `${children()}\n\n`;
      case "codeBlock":
        return `\`\`\`\n${children()}\n\`\`\`\n\n`;
      case "listItem":
        return `- ${children().trim()}\n`;
      case "bulletList":
      case "orderedList":
        return `${children()}\n`;
      case "rule":
        return "---\n\n";
      default:
        return children();
    }
  };
  return {
    text: walk(doc, 0)
      .replace(/\n{3,}/g, "\n\n")
      .trim(),
    mentionIds,
  };
}
