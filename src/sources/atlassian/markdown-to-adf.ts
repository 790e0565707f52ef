import type { AdfBlock, AdfDoc, AdfInline, AdfListItem, AdfMark, AdfText } from "./adf.js";

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const LIST = /^( *)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;
const SAFE_HREF = /^(https?:|mailto:)/i;

/** Markdown (what the agent writes) → an ADF document Jira renders: paragraphs, headings, code blocks, lists, quotes, links, emphasis. */
export function markdownToAdf(markdown: string): AdfDoc {
  return { version: 1, type: "doc", content: parseBlocks(markdown.replace(/\r\n?/g, "\n").split("\n")) };
}

function parseBlocks(lines: string[]): AdfBlock[] {
  const out: AdfBlock[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length === 0) return;
    const content = paragraphInline(para);
    if (content.length > 0) out.push({ type: "paragraph", content });
    para = [];
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (!line.trim()) {
      flush();
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const marker = fence[1]!;
      const body: string[] = [];
      i++;
      while (i < lines.length && !isClosingFence(lines[i]!, marker)) body.push(lines[i++]!);
      i++;
      const text = body.join("\n");
      out.push({ type: "codeBlock", ...(fence[2] ? { attrs: { language: fence[2] } } : {}), content: text ? [{ type: "text", text }] : [] });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      out.push({ type: "heading", attrs: { level: heading[1]!.length as 1 | 2 | 3 | 4 | 5 | 6 }, content: parseInline(heading[2]!, []) });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      flush();
      out.push({ type: "rule" });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      flush();
      const quoted: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) quoted.push(QUOTE.exec(lines[i++]!)![1]!);
      out.push({ type: "blockquote", content: nested(parseBlocks(quoted)) });
      continue;
    }
    if (LIST.test(line)) {
      flush();
      const { block, next } = parseList(lines, i);
      out.push(block);
      i = next;
      continue;
    }
    para.push(line.trim());
    i++;
  }
  flush();
  return out;
}

function isClosingFence(line: string, marker: string): boolean {
  const t = line.trim();
  return t.length >= marker.length && t === marker[0]!.repeat(t.length);
}

const leading = (s: string) => s.length - s.trimStart().length;

function parseList(lines: string[], start: number): { block: AdfBlock; next: number } {
  const first = LIST.exec(lines[start]!)!;
  const indent = first[1]!.length;
  const ordered = /\d/.test(first[2]!);
  const offset = indent + first[2]!.length + 1;
  const sibling = (m: RegExpExecArray | null) => m !== null && m[1]!.length === indent && /\d/.test(m[2]!) === ordered;
  const items: string[][] = [];
  let i = start;
  while (i < lines.length) {
    const line = lines[i]!;
    const m = LIST.exec(line);
    if (sibling(m)) {
      items.push([m![3]!]);
      i++;
      continue;
    }
    if (!line.trim()) {
      const next = lines[i + 1];
      if (next === undefined || !next.trim()) break;
      if (leading(next) > indent) {
        items.at(-1)!.push("");
        i++;
        continue;
      }
      if (sibling(LIST.exec(next))) {
        i++;
        continue;
      }
      break;
    }
    if (leading(line) > indent) {
      items.at(-1)!.push(line.slice(Math.min(leading(line), offset)));
      i++;
      continue;
    }
    if (!m && !FENCE.test(line) && !HEADING.test(line) && !QUOTE.test(line) && !RULE.test(line)) {
      items.at(-1)!.push(line.trim());
      i++;
      continue;
    }
    break;
  }
  const content: AdfListItem[] = items.map((itemLines) => ({ type: "listItem", content: listItemContent(parseBlocks(itemLines)) }));
  const startNumber = Number.parseInt(first[2]!, 10);
  const block: AdfBlock = ordered ? { type: "orderedList", ...(startNumber !== 1 ? { attrs: { order: startNumber } } : {}), content } : { type: "bulletList", content };
  return { block, next: i };
}

/** A list item must start with a paragraph (or code block). */
function listItemContent(blocks: AdfBlock[]): AdfBlock[] {
  const content = nested(blocks);
  const head = content[0];
  if (!head || (head.type !== "paragraph" && head.type !== "codeBlock")) content.unshift({ type: "paragraph", content: [] });
  return content;
}

/** Inside lists and quotes ADF allows no headings, rules or quotes: headings become bold paragraphs. */
function nested(blocks: AdfBlock[]): AdfBlock[] {
  return blocks.flatMap((b): AdfBlock[] => {
    if (b.type === "heading") return [{ type: "paragraph", content: b.content.map((n) => (n.type === "text" ? withMark(n, { type: "strong" }) : n)) }];
    if (b.type === "rule") return [];
    if (b.type === "blockquote") return b.content;
    return [b];
  });
}

function withMark(node: AdfText, mark: AdfMark): AdfText {
  if (node.marks?.some((m) => m.type === "code")) return node;
  return { ...node, marks: [...(node.marks ?? []), mark] };
}

function paragraphInline(lines: string[]): AdfInline[] {
  const out: AdfInline[] = [];
  lines.forEach((line, n) => {
    if (n > 0) out.push({ type: "hardBreak" });
    out.push(...parseInline(line, []));
  });
  return out;
}

const INLINE = new RegExp(
  [
    /`([^`\n]+)`/.source, // 1 code
    /\[([^\]\n]+)\]\(\s*<?([^)\s>]+)>?\s*\)/.source, // 2 text, 3 href
    /\*\*(?=\S)(.+?)\*\*/.source, // 4 strong
    /(?<!\w)__(?=\S)(.+?)__(?!\w)/.source, // 5 strong
    /~~(?=\S)(.+?)~~/.source, // 6 strike
    /\*(?=[^\s*])([^*]+?)\*/.source, // 7 em
    /(?<!\w)_(?=[^\s_])([^_]+?)_(?!\w)/.source, // 8 em
    /(https?:\/\/[^\s<>]*[^\s<>.,;:!?'")\]])/.source, // 9 bare URL
  ].join("|"),
  "g",
);

function parseInline(text: string, marks: AdfMark[]): AdfInline[] {
  const out: AdfInline[] = [];
  const plain = (s: string) => {
    if (s) out.push(marks.length ? { type: "text", text: s, marks } : { type: "text", text: s });
  };
  const inLink = marks.some((m) => m.type === "link");
  let last = 0;
  for (const m of text.matchAll(new RegExp(INLINE.source, "g"))) {
    const at = m.index;
    plain(text.slice(last, at));
    last = at + m[0].length;
    if (m[1] !== undefined) {
      // ADF: the code mark combines only with a link.
      out.push({ type: "text", text: m[1], marks: [...marks.filter((k) => k.type === "link"), { type: "code" }] });
    } else if (m[2] !== undefined) {
      const href = m[3]!;
      if (SAFE_HREF.test(href) && !inLink) out.push(...parseInline(m[2], [...marks, { type: "link", attrs: { href } }]));
      else plain(m[0]);
    } else if (m[4] !== undefined || m[5] !== undefined) {
      out.push(...parseInline((m[4] ?? m[5])!, addMark(marks, "strong")));
    } else if (m[6] !== undefined) {
      out.push(...parseInline(m[6], addMark(marks, "strike")));
    } else if (m[7] !== undefined || m[8] !== undefined) {
      out.push(...parseInline((m[7] ?? m[8])!, addMark(marks, "em")));
    } else if (m[9] !== undefined) {
      if (inLink) plain(m[9]);
      else out.push({ type: "text", text: m[9], marks: [...marks, { type: "link", attrs: { href: m[9] } }] });
    }
  }
  plain(text.slice(last));
  return out;
}

function addMark(marks: AdfMark[], type: "strong" | "em" | "strike"): AdfMark[] {
  return marks.some((m) => m.type === type) ? marks : [...marks, { type }];
}
