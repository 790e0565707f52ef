import { children, lexMarkdown, type MarkedToken, type Tokens, taskMark } from "../markdown/lex-markdown.js";
import type { AdfBlock, AdfDoc, AdfInline, AdfListItem, AdfMark, AdfTableCell, AdfText } from "./adf.js";

const SAFE_HREF = /^(https?:|mailto:)/i;

/**
 * Markdown (what the agent writes) → an ADF document Jira and Confluence render: paragraphs, headings, code
 * blocks, lists, quotes, tables, links, emphasis. Read by marked's lexer (`lexMarkdown`); ADF's own rules on
 * top: only http(s) and mailto links, the code mark combined with nothing but a link, inside a list or a quote
 * no heading, rule, quote or table.
 */
export function markdownToAdf(markdown: string): AdfDoc {
  return { version: 1, type: "doc", content: blocks(lexMarkdown(markdown)) };
}

function blocks(tokens: readonly MarkedToken[]): AdfBlock[] {
  const out: AdfBlock[] = [];
  let prefix = "";
  for (const t of tokens) {
    switch (t.type) {
      case "checkbox":
        prefix = taskMark(t);
        continue;
      case "paragraph":
      case "text": {
        const content = inlines(prefix ? [{ type: "text", raw: prefix, text: prefix }, ...children(t.tokens)] : children(t.tokens ?? [{ type: "text", raw: t.raw, text: t.text }]));
        if (content.length > 0) out.push({ type: "paragraph", content });
        break;
      }
      case "html": {
        const content = inlines([{ type: "text", raw: t.raw, text: t.raw.trimEnd() }]);
        if (content.length > 0) out.push({ type: "paragraph", content });
        break;
      }
      case "heading":
        out.push({ type: "heading", attrs: { level: t.depth as 1 | 2 | 3 | 4 | 5 | 6 }, content: inlines(children(t.tokens)) });
        break;
      case "code": {
        const language = t.lang?.trim().split(/\s+/)[0];
        out.push({ type: "codeBlock", ...(language ? { attrs: { language } } : {}), content: t.text ? [{ type: "text", text: t.text }] : [] });
        break;
      }
      case "hr":
        out.push({ type: "rule" });
        break;
      case "blockquote":
        out.push({ type: "blockquote", content: nested(blocks(children(t.tokens)), t) });
        break;
      case "list":
        out.push(list(t));
        break;
      case "table":
        out.push(table(t));
        break;
      default:
        break; // space, link definitions
    }
    prefix = "";
  }
  return out;
}

function list(t: Tokens.List): AdfBlock {
  const content: AdfListItem[] = t.items.map((item) => ({ type: "listItem", content: listItemContent(nested(blocks(children(item.tokens)), item)) }));
  const start = typeof t.start === "number" ? t.start : 1;
  return t.ordered ? { type: "orderedList", ...(start !== 1 ? { attrs: { order: start } } : {}), content } : { type: "bulletList", content };
}

function table(t: Tokens.Table): AdfBlock {
  const cell = (c: Tokens.TableCell, type: AdfTableCell["type"]): AdfTableCell => {
    const content = inlines(children(c.tokens));
    return { type, attrs: {}, content: [{ type: "paragraph", content }] };
  };
  return {
    type: "table",
    attrs: { isNumberColumnEnabled: false, layout: "default" },
    content: [{ type: "tableRow", content: t.header.map((c) => cell(c, "tableHeader")) }, ...t.rows.map((row) => ({ type: "tableRow" as const, content: row.map((c) => cell(c, "tableCell")) }))],
  };
}

/** A list item must start with a paragraph (or code block). */
function listItemContent(content: AdfBlock[]): AdfBlock[] {
  const head = content[0];
  if (!head || (head.type !== "paragraph" && head.type !== "codeBlock")) content.unshift({ type: "paragraph", content: [] });
  return content;
}

/**
 * Inside lists and quotes ADF allows no headings, rules, quotes or tables: headings become bold paragraphs,
 * a table its Markdown text in a code block.
 */
function nested(content: AdfBlock[], parent: Tokens.Blockquote | Tokens.ListItem): AdfBlock[] {
  const tables = children(parent.tokens).filter((t): t is Tokens.Table => t.type === "table");
  let n = 0;
  return content.flatMap((b): AdfBlock[] => {
    if (b.type === "heading") return [{ type: "paragraph", content: b.content.map((i) => (i.type === "text" ? withMark(i, { type: "strong" }) : i)) }];
    if (b.type === "rule") return [];
    if (b.type === "blockquote") return b.content;
    if (b.type === "table") return [{ type: "codeBlock", content: [{ type: "text", text: (tables[n++]?.raw ?? "").trimEnd() }] }];
    return [b];
  });
}

function withMark(node: AdfText, mark: AdfMark): AdfText {
  if (node.marks?.some((m) => m.type === "code")) return node;
  return { ...node, marks: [...(node.marks ?? []), mark] };
}

/** Inline tokens → ADF inline nodes; neighbouring text with the same marks joined, no empty text node. */
function inlines(tokens: readonly MarkedToken[], marks: AdfMark[] = []): AdfInline[] {
  const out: AdfInline[] = [];
  const push = (n: AdfInline) => {
    const last = out.at(-1);
    if (n.type === "text" && !n.text) return;
    if (n.type === "text" && last?.type === "text" && JSON.stringify(last.marks ?? []) === JSON.stringify(n.marks ?? [])) out[out.length - 1] = { ...last, text: last.text + n.text };
    else out.push(n);
  };
  const plain = (text: string) => push(marks.length ? { type: "text", text, marks } : { type: "text", text });
  const inLink = marks.some((m) => m.type === "link");
  for (const t of tokens) {
    switch (t.type) {
      case "text":
        if (t.tokens) for (const n of inlines(children(t.tokens), marks)) push(n);
        else plain(t.text);
        break;
      case "escape":
        plain(t.raw.slice(1));
        break;
      case "html":
        plain(t.raw);
        break;
      case "br":
        push({ type: "hardBreak" });
        break;
      case "codespan":
        // ADF: the code mark combines only with a link.
        push({ type: "text", text: t.text, marks: [...marks.filter((k) => k.type === "link"), { type: "code" }] });
        break;
      case "strong":
      case "em":
      case "del":
        for (const n of inlines(children(t.tokens), addMark(marks, t.type === "del" ? "strike" : t.type))) push(n);
        break;
      case "link":
      case "image": {
        const label = t.type === "image" ? [{ type: "text", raw: t.text, text: t.text } as Tokens.Text] : children(t.tokens);
        if (SAFE_HREF.test(t.href) && !inLink && label.length > 0) for (const n of inlines(label, [...marks, { type: "link", attrs: { href: t.href } }])) push(n);
        else plain(t.raw);
        break;
      }
      default:
        if ("raw" in t) plain(t.raw);
    }
  }
  return out;
}

function addMark(marks: AdfMark[], type: "strong" | "em" | "strike"): AdfMark[] {
  return marks.some((m) => m.type === type) ? marks : [...marks, { type }];
}
