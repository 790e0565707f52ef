/** Atlassian Document Format (ADF), the subset we write and read: https://developer.atlassian.com/cloud/jira/platform/apis/document/structure/ */
export type AdfMark = { type: "strong" | "em" | "strike" | "code" } | { type: "link"; attrs: { href: string } };

export interface AdfText {
  type: "text";
  text: string;
  marks?: AdfMark[];
}

export type AdfInline = AdfText | { type: "hardBreak" } | { type: "mention"; attrs: { id: string; text?: string } };

export type AdfBlock =
  | { type: "paragraph"; content: AdfInline[] }
  | { type: "heading"; attrs: { level: 1 | 2 | 3 | 4 | 5 | 6 }; content: AdfInline[] }
  | { type: "codeBlock"; attrs?: { language: string }; content: AdfText[] }
  | { type: "bulletList"; content: AdfListItem[] }
  | { type: "orderedList"; attrs?: { order: number }; content: AdfListItem[] }
  | { type: "blockquote"; content: AdfBlock[] }
  | { type: "rule" }
  | { type: "table"; attrs?: { isNumberColumnEnabled: boolean; layout: "default" }; content: AdfTableRow[] };

export interface AdfTableRow {
  type: "tableRow";
  content: AdfTableCell[];
}

export interface AdfTableCell {
  type: "tableHeader" | "tableCell";
  attrs?: Record<string, never>;
  content: AdfBlock[];
}

export interface AdfListItem {
  type: "listItem";
  content: AdfBlock[];
}

export interface AdfDoc {
  version: 1;
  type: "doc";
  content: AdfBlock[];
}
