/** Slack's `chat.postMessage` text limit is 40,000 characters; a little is kept back for the note. */
export const SLACK_TEXT_MAX = 39_000;

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function inline(text: string): string {
  const BOLD = "\u0001";
  return (
    escape(text)
      // `@Name(U0123)` is how the model names a person; Slack wants `<@U0123>`.
      .replace(/@[^()<>@\n]{1,80}?\(([UW][A-Z0-9]{2,20})\)/g, "<@$1>")
      .replace(/!?\[([^\]\n]*)\]\((https?:\/\/[^\s)]+)\)/g, (_m, label: string, url: string) => (label ? `<${url}|${label.replace(/\|/g, "¦")}>` : `<${url}>`))
      .replace(/\*\*(?=\S)([^\n]*?\S)\*\*/g, `${BOLD}$1${BOLD}`)
      .replace(/__(?=\S)([^\n]*?\S)__/g, `${BOLD}$1${BOLD}`)
      .replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])/g, "$1_$2_")
      .replace(/~~(?=\S)([^\n]*?\S)~~/g, "~$1~")
      .replace(new RegExp(BOLD, "g"), "*")
  );
}

function line(l: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(l);
  if (heading) return `*${inline(heading[1]!).replace(/\*/g, "")}*`;
  const quote = /^(\s*)>\s?(.*)$/.exec(l);
  if (quote) return `${quote[1]}> ${inline(quote[2]!)}`;
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(l);
  if (bullet) return `${bullet[1]}• ${inline(bullet[2]!)}`;
  return inline(l);
}

/** Inline code spans are kept as they are (escaped), the rest converted. */
function prose(block: string): string {
  return block
    .split("\n")
    .map((l) =>
      l
        .split(/(`[^`\n]+`)/)
        .map((part, i) => (i % 2 === 1 ? escape(part) : part))
        .reduce((acc, part, i) => acc + (i % 2 === 1 ? part : i === 0 ? line(part) : inline(part)), ""),
    )
    .join("\n");
}

/**
 * GitHub-flavoured Markdown → Slack mrkdwn: bold, italics, strike, links, headings, bullets, quotes;
 * code blocks and spans untouched but escaped; `&`, `<`, `>` escaped as Slack requires; capped in length.
 */
export function markdownToMrkdwn(markdown: string): string {
  const out = markdown
    .replace(/\r\n/g, "\n")
    .split(/(^```[^\n]*\n[\s\S]*?^```[ \t]*$)/m)
    .map((part, i) => (i % 2 === 1 ? `\`\`\`\n${escape(part.replace(/^```[^\n]*\n/, "").replace(/\n?```[ \t]*$/, ""))}\n\`\`\`` : prose(part)))
    .join("");
  return out.length > SLACK_TEXT_MAX ? `${out.slice(0, SLACK_TEXT_MAX)}\n… (message shortened)` : out;
}
