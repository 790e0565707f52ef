import { children, lexMarkdown, type MarkedToken, type Tokens, taskMark } from "../markdown/lex-markdown.js";

/** Slack's `chat.postMessage` text limit is 40,000 characters; a little is kept back for the note. */
export const SLACK_TEXT_MAX = 39_000;

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const SAFE_HREF = /^(https?:|mailto:)/i;

/** `@Name(U0123)` is how the model names a person; Slack wants `<@U0123>` (on escaped text). */
const mentions = (s: string) => s.replace(/@[^()<>@\n]{1,80}?\(([UW][A-Z0-9]{2,20})\)/g, "<@$1>");

function inline(tokens: readonly MarkedToken[]): string {
  let out = "";
  for (const t of tokens) {
    switch (t.type) {
      case "text":
        out += t.tokens ? inline(children(t.tokens)) : mentions(escape(t.text));
        break;
      case "escape":
        out += escape(t.raw.slice(1));
        break;
      case "html":
        out += escape(t.raw);
        break;
      case "br":
        out += "\n";
        break;
      case "codespan":
        out += `\`${escape(t.text)}\``;
        break;
      case "strong":
        out += `*${inline(children(t.tokens))}*`;
        break;
      case "em":
        out += `_${inline(children(t.tokens))}_`;
        break;
      case "del":
        out += `~${inline(children(t.tokens))}~`;
        break;
      case "link":
      case "image": {
        const label = t.text;
        if (!SAFE_HREF.test(t.href)) out += escape(t.raw);
        else if (t.type === "link" && label === t.href)
          out += escape(label); // a bare URL: Slack links it itself
        else out += label ? `<${t.href}|${escape(label).replace(/\|/g, "¦")}>` : `<${t.href}>`;
        break;
      }
      default:
        if ("raw" in t) out += escape(t.raw);
    }
  }
  return out;
}

const fence = (text: string) => `\`\`\`\n${escape(text)}\n\`\`\``;
const indent = (text: string, by: string) => text.replace(/^/gm, by);

/** Blocks → lines; a blank line where the Markdown had one. */
function blocks(tokens: readonly MarkedToken[]): string {
  const out: string[] = [];
  let prefix = "";
  for (const t of tokens) {
    let text: string | null = null;
    switch (t.type) {
      case "space":
        out.push("");
        continue;
      case "checkbox":
        prefix = taskMark(t);
        continue;
      case "paragraph":
      case "text":
        text = prefix + (t.tokens ? inline(children(t.tokens)) : escape(t.text));
        break;
      case "heading":
        text = `*${inline(children(t.tokens)).replace(/\*/g, "")}*`;
        break;
      case "code":
        text = fence(t.text);
        break;
      case "table":
        text = fence(t.raw.trimEnd());
        break;
      case "html":
        text = escape(t.raw.trimEnd());
        break;
      case "hr":
        text = "───";
        break;
      case "blockquote":
        text = indent(blocks(children(t.tokens)), "> ");
        break;
      case "list":
        text = list(t);
        break;
      default:
        continue;
    }
    prefix = "";
    out.push(text);
    if (/\n\n$/.test(t.raw)) out.push("");
  }
  return out.join("\n");
}

function list(t: Tokens.List): string {
  const start = typeof t.start === "number" ? t.start : 1;
  return t.items
    .map((item, i) => {
      const mark = t.ordered ? `${start + i}. ` : "• ";
      return mark + blocks(children(item.tokens)).replace(/\n+$/, "").replace(/\n/g, "\n  ");
    })
    .join("\n");
}

/**
 * GitHub-flavoured Markdown (read by `lexMarkdown`) → Slack mrkdwn: bold, italics, strike, links, headings,
 * bullets, quotes; code blocks, spans and tables (mrkdwn has none: as a code block) kept but escaped; `&`, `<`,
 * `>` escaped as Slack requires; capped in length.
 */
export function markdownToMrkdwn(markdown: string): string {
  const out = blocks(lexMarkdown(markdown)).replace(/\n+$/, "");
  return out.length > SLACK_TEXT_MAX ? `${out.slice(0, SLACK_TEXT_MAX)}\n… (message shortened)` : out;
}
