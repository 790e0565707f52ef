import type { AdfBlock, AdfDoc, AdfInline } from "./adf.js";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Confluence storage format (XHTML) of an ADF document: how a Markdown reply becomes a Confluence comment. */
export function adfToStorage(doc: AdfDoc): string {
  return doc.content.map(block).join("");
}

function block(b: AdfBlock): string {
  switch (b.type) {
    case "paragraph":
      return `<p>${b.content.map(inline).join("")}</p>`;
    case "heading":
      return `<h${b.attrs.level}>${b.content.map(inline).join("")}</h${b.attrs.level}>`;
    case "codeBlock": {
      const lang = b.attrs?.language ? `<ac:parameter ac:name="language">${esc(b.attrs.language)}</ac:parameter>` : "";
      // CDATA cannot hold "]]>": split it across two sections.
      const body = b.content
        .map((t) => t.text)
        .join("")
        .replace(/]]>/g, "]]]]><![CDATA[>");
      return `<ac:structured-macro ac:name="code">${lang}<ac:plain-text-body><![CDATA[${body}]]></ac:plain-text-body></ac:structured-macro>`;
    }
    case "bulletList":
      return `<ul>${b.content.map((li) => `<li>${li.content.map(block).join("")}</li>`).join("")}</ul>`;
    case "orderedList": {
      const start = b.attrs?.order !== undefined ? ` start="${b.attrs.order}"` : "";
      return `<ol${start}>${b.content.map((li) => `<li>${li.content.map(block).join("")}</li>`).join("")}</ol>`;
    }
    case "blockquote":
      return `<blockquote>${b.content.map(block).join("")}</blockquote>`;
    case "rule":
      return "<hr />";
    case "table":
      return `<table><tbody>${b.content
        .map((row) => `<tr>${row.content.map((c) => (c.type === "tableHeader" ? `<th>${c.content.map(block).join("")}</th>` : `<td>${c.content.map(block).join("")}</td>`)).join("")}</tr>`)
        .join("")}</tbody></table>`;
  }
}

const TAGS = { strong: "strong", em: "em", strike: "s", code: "code" } as const;

function inline(n: AdfInline): string {
  if (n.type === "hardBreak") return "<br />";
  if (n.type === "mention") return `<ac:link><ri:user ri:account-id="${esc(n.attrs.id)}" /></ac:link>`;
  let html = esc(n.text);
  for (const mark of n.marks ?? []) {
    html = mark.type === "link" ? `<a href="${esc(mark.attrs.href)}">${html}</a>` : `<${TAGS[mark.type]}>${html}</${TAGS[mark.type]}>`;
  }
  return html;
}
