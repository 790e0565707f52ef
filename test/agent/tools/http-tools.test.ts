import nock from "nock";
import { describe, expect, it } from "vitest";
import { createFetchUrlTool, htmlToText } from "../../../src/agent/tools/fetch-url-tool.js";
import { createHttpRequestTool } from "../../../src/agent/tools/http-request-tool.js";
import type { LookupAll } from "../../../src/net/http-guard.js";

const lookup: LookupAll = async (host) => [{ address: host === "docs.example.com" ? "93.184.216.34" : "192.168.0.10", family: 4 }];

describe("http_request tool", () => {
  it("sends method, headers and body and returns status, headers and body", async () => {
    nock("https://docs.example.com").put("/items/1", '{"a":1}').matchHeader("content-type", "application/json").reply(201, "created", { "x-id": "1" });
    const out = await createHttpRequestTool({ lookup }).invoke({ url: "https://docs.example.com/items/1", method: "PUT", headers: { "content-type": "application/json" }, body: '{"a":1}' });
    expect(out).toMatch(/^HTTP 201\n/);
    expect(out).toContain("x-id: 1");
    expect(out).toMatch(/\n\ncreated$/);
  });

  it("refuses a private host", async () => {
    await expect(createHttpRequestTool({ lookup }).invoke({ url: "http://router.lan/admin" })).rejects.toThrow(/private address/);
  });
});

describe("fetch_url tool", () => {
  it("returns readable text for HTML", async () => {
    nock("https://docs.example.com")
      .get("/guide")
      .reply(200, "<html><head><style>p{}</style><script>alert(1)</script></head><body><h1>Guide</h1><p>Use &amp; enjoy&#33;</p></body></html>", { "content-type": "text/html; charset=utf-8" });
    const out = await createFetchUrlTool({ lookup }).invoke({ url: "https://docs.example.com/guide" });
    expect(out).toBe("https://docs.example.com/guide\n\nGuide\nUse & enjoy!");
  });

  it("marks truncated content", async () => {
    nock("https://docs.example.com").get("/big.txt").reply(200, "y".repeat(300), { "content-type": "text/plain" });
    const out = await createFetchUrlTool({ lookup, maxBytes: 10 }).invoke({ url: "https://docs.example.com/big.txt" });
    expect(out).toBe("https://docs.example.com/big.txt\n\nyyyyyyyyyy\n[content truncated]");
  });

  it.each([
    ["<p>a</p><p>b</p>", "a\nb"],
    ["<div>x<!-- hidden --></div>  <br/>y", "x\n\ny"],
    ["&lt;tag&gt; &#x41;", "<tag> A"],
  ])("htmlToText(%j)", (html, text) => {
    expect(htmlToText(html)).toBe(text);
  });
});
