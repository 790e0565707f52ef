import { describe, expect, it } from "vitest";
import type { AdfBlock } from "../../../src/sources/atlassian/adf.js";
import { adfToStorage } from "../../../src/sources/atlassian/adf-to-storage.js";
import { adfToText } from "../../../src/sources/atlassian/adf-to-text.js";
import { markdownToAdf } from "../../../src/sources/atlassian/markdown-to-adf.js";
import { storageToText } from "../../../src/sources/atlassian/storage-to-text.js";

const t = (text: string, ...marks: object[]) => (marks.length ? { type: "text", text, marks } : { type: "text", text });
const p = (...content: object[]) => ({ type: "paragraph", content });
const li = (...content: object[]) => ({ type: "listItem", content });

const cases: [string, string, AdfBlock[]][] = [
  ["empty input", "", []],
  ["one paragraph", "hello", [p(t("hello"))] as AdfBlock[]],
  ["blank lines split paragraphs", "a\n\n\nb", [p(t("a")), p(t("b"))] as AdfBlock[]],
  ["a single newline is a hard break", "a\nb", [p(t("a"), { type: "hardBreak" }, t("b"))] as AdfBlock[]],
  ["CRLF line ends", "a\r\n\r\nb", [p(t("a")), p(t("b"))] as AdfBlock[]],
  ["heading", "## Plan", [{ type: "heading", attrs: { level: 2 }, content: [t("Plan")] }] as AdfBlock[]],
  ["fenced code with a language keeps its text verbatim", "```ts\nconst a = **1**;\n  x\n```", [{ type: "codeBlock", attrs: { language: "ts" }, content: [t("const a = **1**;\n  x")] }] as AdfBlock[]],
  ["unclosed fence runs to the end", "```\nraw", [{ type: "codeBlock", content: [t("raw")] }] as AdfBlock[]],
  ["empty code block", "```\n```", [{ type: "codeBlock", content: [] }] as AdfBlock[]],
  ["bullet list", "- one\n- two", [{ type: "bulletList", content: [li(p(t("one"))), li(p(t("two")))] }] as AdfBlock[]],
  ["ordered list from 3", "3. c\n4. d", [{ type: "orderedList", attrs: { order: 3 }, content: [li(p(t("c"))), li(p(t("d")))] }] as AdfBlock[]],
  ["ordered list from 1 has no order attr", "1. a", [{ type: "orderedList", content: [li(p(t("a")))] }] as AdfBlock[]],
  ["nested list", "- a\n  - b\n- c", [{ type: "bulletList", content: [li(p(t("a")), { type: "bulletList", content: [li(p(t("b")))] }), li(p(t("c")))] }] as AdfBlock[]],
  [
    "code block inside a list item",
    "- run:\n  ```sh\n  npm test\n  ```",
    [{ type: "bulletList", content: [li(p(t("run:")), { type: "codeBlock", attrs: { language: "sh" }, content: [t("npm test")] })] }] as AdfBlock[],
  ],
  ["list then paragraph", "- a\n\nafter", [{ type: "bulletList", content: [li(p(t("a")))] }, p(t("after"))] as AdfBlock[]],
  ["link", "see [the PR](https://github.com/o/r/pull/1).", [p(t("see "), t("the PR", { type: "link", attrs: { href: "https://github.com/o/r/pull/1" } }), t("."))] as AdfBlock[]],
  [
    "bare URL without trailing punctuation",
    "PR: https://github.com/o/r/pull/2.",
    [p(t("PR: "), t("https://github.com/o/r/pull/2", { type: "link", attrs: { href: "https://github.com/o/r/pull/2" } }), t("."))] as AdfBlock[],
  ],
  // One text node now (the lexer reads the whole link; neighbouring text is joined): still no link mark.
  ["a javascript: link stays text", "[x](javascript:alert(1))", [p(t("[x](javascript:alert(1))"))] as AdfBlock[]],
  [
    "bold, italic, strike, code",
    "**b** *i* _j_ ~~s~~ `c`",
    [p(t("b", { type: "strong" }), t(" "), t("i", { type: "em" }), t(" "), t("j", { type: "em" }), t(" "), t("s", { type: "strike" }), t(" "), t("c", { type: "code" }))] as AdfBlock[],
  ],
  ["code inside bold drops the bold (ADF: code combines only with link)", "**a `b`**", [p(t("a ", { type: "strong" }), t("b", { type: "code" }))] as AdfBlock[]],
  ["snake_case is not emphasis", "my_var_name", [p(t("my_var_name"))] as AdfBlock[]],
  ["blockquote", "> quoted\n> more", [{ type: "blockquote", content: [p(t("quoted"), { type: "hardBreak" }, t("more"))] }] as AdfBlock[]],
  ["heading inside a quote becomes a bold paragraph", "> # H", [{ type: "blockquote", content: [p(t("H", { type: "strong" }))] }] as AdfBlock[]],
  ["rule", "a\n\n---\n\nb", [p(t("a")), { type: "rule" }, p(t("b"))] as AdfBlock[]],
];

describe("markdownToAdf", () => {
  it.each(cases)("%s", (_name, md, content) => {
    expect(markdownToAdf(md)).toEqual({ version: 1, type: "doc", content });
  });

  it("never emits an empty text node", () => {
    const json = JSON.stringify(markdownToAdf("**x**\n\n- \n\n``\n\n[a]()"));
    expect(json).not.toContain('"text":""');
  });
});

const link = (href: string) => ({ type: "link", attrs: { href } });
const cell = (type: "tableHeader" | "tableCell", ...content: object[]) => ({ type, attrs: {}, content: [p(...content)] });
const TABLE_ATTRS = { isNumberColumnEnabled: false, layout: "default" };

/** GitHub-flavoured tables, and ADF's rules kept on top of marked's lexer. */
const gfmAndRules: [string, string, AdfBlock[]][] = [
  [
    "a GFM table is an ADF table (header cells, inline marks kept)",
    "| name | state |\n|---|:-:|\n| `a.ts` | **red** |\n| [b](https://x.test) | ok |",
    [
      {
        type: "table",
        attrs: TABLE_ATTRS,
        content: [
          { type: "tableRow", content: [cell("tableHeader", t("name")), cell("tableHeader", t("state"))] },
          { type: "tableRow", content: [cell("tableCell", t("a.ts", { type: "code" })), cell("tableCell", t("red", { type: "strong" }))] },
          { type: "tableRow", content: [cell("tableCell", t("b", link("https://x.test"))), cell("tableCell", t("ok"))] },
        ],
      },
    ] as AdfBlock[],
  ],
  [
    "an empty cell is an empty paragraph",
    "| a | b |\n|---|---|\n| | x |",
    [
      {
        type: "table",
        attrs: TABLE_ATTRS,
        content: [
          { type: "tableRow", content: [cell("tableHeader", t("a")), cell("tableHeader", t("b"))] },
          { type: "tableRow", content: [cell("tableCell"), cell("tableCell", t("x"))] },
        ],
      },
    ] as AdfBlock[],
  ],
  [
    "a table inside a list is its Markdown in a code block",
    "- rows:\n\n  | a |\n  |---|\n  | 1 |",
    [{ type: "bulletList", content: [li(p(t("rows:")), { type: "codeBlock", content: [t("| a |\n|---|\n| 1 |")] })] }] as AdfBlock[],
  ],
  ["a data: link stays text", "[x](data:text/html,hi)", [p(t("[x](data:text/html,hi)"))] as AdfBlock[]],
  ["a vbscript: autolink stays text", "<vbscript:msgbox>", [p(t("<vbscript:msgbox>"))] as AdfBlock[]],
  ["a mailto link is a link", "[mail](mailto:a@b.test)", [p(t("mail", link("mailto:a@b.test")))] as AdfBlock[]],
  ["code inside a link keeps the link", "[`run()`](https://x.test)", [p(t("run()", link("https://x.test"), { type: "code" }))] as AdfBlock[]],
  ["code inside emphasis and strike drops them", "*~~a `b`~~*", [p(t("a ", { type: "em" }, { type: "strike" }), t("b", { type: "code" }))] as AdfBlock[]],
  ["no link inside a link", "[see https://y.test](https://x.test)", [p(t("see https://y.test", link("https://x.test")))] as AdfBlock[]],
  ["a heading inside a list is a bold paragraph", "- # Title\n  text", [{ type: "bulletList", content: [li(p(t("Title", { type: "strong" })), p(t("text")))] }] as AdfBlock[]],
  ["a rule inside a quote is dropped, a nested quote flattened", "> a\n>\n> ---\n>\n> > b", [{ type: "blockquote", content: [p(t("a")), p(t("b"))] }] as AdfBlock[]],
  ["task items keep their boxes", "- [x] done\n- [ ] todo", [{ type: "bulletList", content: [li(p(t("☑ done"))), li(p(t("☐ todo")))] }] as AdfBlock[]],
  ["inline HTML is text", "a <b>bold</b>", [p(t("a <b>bold</b>"))] as AdfBlock[]],
  ["escapes are their character", "\\*not em\\*", [p(t("*not em*"))] as AdfBlock[]],
];

describe("markdownToAdf: GFM tables and ADF's rules", () => {
  it.each(gfmAndRules)("%s", (_name, md, content) => {
    expect(markdownToAdf(md)).toEqual({ version: 1, type: "doc", content });
  });

  it("a table reaches Confluence as an XHTML table", () => {
    expect(adfToStorage(markdownToAdf("| a | b |\n|---|---|\n| 1 | <2> |"))).toBe(
      "<table><tbody><tr><th><p>a</p></th><th><p>b</p></th></tr><tr><td><p>1</p></td><td><p>&lt;2&gt;</p></td></tr></tbody></table>",
    );
  });
});

describe("adfToText", () => {
  it("reads text, breaks, lists, code and mentions", () => {
    const { text, mentionIds } = adfToText({
      type: "doc",
      content: [
        {
          type: "paragraph",
          content: [
            { type: "mention", attrs: { id: "acc-1", text: "@Open SWE" } },
            { type: "text", text: " fix it" },
          ],
        },
        { type: "bulletList", content: [li(p(t("one"))), li(p(t("two")))] },
        { type: "codeBlock", content: [t("x = 1")] },
        { type: "unknownFuture", content: [t("kept")] },
      ],
    });
    expect(text).toBe("@Open SWE fix it\n\n- one\n- two\n\n```\nx = 1\n```\n\nkept");
    expect(mentionIds).toEqual(["acc-1"]);
  });

  it("survives junk", () => {
    expect(adfToText(null).text).toBe("");
    expect(adfToText({ type: "paragraph", content: [1, "x", { type: "text", text: 5 }] }).text).toBe("");
  });
});

describe("adfToStorage", () => {
  it("renders escaped XHTML with a code macro", () => {
    const doc = markdownToAdf('# T\n\n<b> & "q" [l](https://x.test/?a=1&b=2)\n\n```js\nif (a]]>b) {}\n```\n\n2. x');
    expect(adfToStorage(doc)).toBe(
      "<h1>T</h1>" +
        '<p>&lt;b&gt; &amp; &quot;q&quot; <a href="https://x.test/?a=1&amp;b=2">l</a></p>' +
        '<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">js</ac:parameter><ac:plain-text-body><![CDATA[if (a]]]]><![CDATA[>b) {}]]></ac:plain-text-body></ac:structured-macro>' +
        '<ol start="2"><li><p>x</p></li></ol>',
    );
  });
});

describe("storageToText", () => {
  it("reads paragraphs, mentions, entities and code", () => {
    const { text, mentionIds } = storageToText(
      '<p><ac:link><ri:user ri:account-id="557058:abc" /></ac:link> please &amp; thanks&#33;</p><ul><li>a</li></ul>' +
        '<ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[x<y]]></ac:plain-text-body></ac:structured-macro><p>&#99999999;</p>',
    );
    expect(text).toBe("@557058:abc please & thanks!\n\n- a\n\nx<y\n&#99999999;");
    expect(mentionIds).toEqual(["557058:abc"]);
  });
});
