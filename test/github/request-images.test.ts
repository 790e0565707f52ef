import { describe, expect, it } from "vitest";
import { isGitHubAttachment, requestImageUrls, sniffImageType, withImages } from "../../src/github/request-images.js";

const A = "https://github.com/user-attachments/assets/0b1c-aa";
const B = "https://private-user-images.githubusercontent.com/1/2.png?jwt=x";

describe("a request's images", () => {
  it.each([
    ["markdown", `look ![shot](${A}) here`, [A]],
    ["html img", `<img width="300" alt="x" src="${B}">`, [B]],
    ["both, in order, deduplicated", `<img src="${B}"> then ![a](${A}) and ![again](${A})`, [B, A]],
    ["a title after the URL", `![a](${A} "title")`, [A]],
    ["&amp; in an html src", `<img src="https://private-user-images.githubusercontent.com/1/2.png?a=1&amp;jwt=y">`, ["https://private-user-images.githubusercontent.com/1/2.png?a=1&jwt=y"]],
    ["not GitHub's: left alone", "![x](https://evil.example.com/a.png) ![y](https://github.com.evil.com/user-attachments/assets/1)", []],
    ["plain http", "![x](http://user-images.githubusercontent.com/1.png)", []],
    ["github.com outside user-attachments", "![x](https://github.com/octo/hello/raw/main/a.png)", []],
    ["a link, not an image", `[see](${A})`, []],
    ["at most 5", Array.from({ length: 7 }, (_, i) => `![${i}](${A}${i})`).join(" "), [0, 1, 2, 3, 4].map((i) => `${A}${i}`)],
  ])("%s", (_t, text, urls) => expect(requestImageUrls(text)).toEqual(urls));

  it.each([
    ["https://user:pw@user-images.githubusercontent.com/1.png", false],
    ["https://user-images.githubusercontent.com:8443/1.png", false],
    ["https://user-images.githubusercontent.com/1.png", true],
    ["not a url", false],
  ])("isGitHubAttachment(%s) = %s", (url, ok) => expect(isGitHubAttachment(url)).toBe(ok));

  it.each([
    [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0], "image/png"],
    [[0xff, 0xd8, 0xff, 0xe0], "image/jpeg"],
    [[0x47, 0x49, 0x46, 0x38, 0x39, 0x61], "image/gif"],
    [[...Buffer.from("RIFF"), 0, 0, 0, 0, ...Buffer.from("WEBP")], "image/webp"],
    [[...Buffer.from("<svg onload=alert(1)>")], undefined],
    [[...Buffer.from("<!doctype html>")], undefined],
  ])("sniffs %j as %s", (bytes, type) => expect(sniffImageType(Uint8Array.from(bytes))).toBe(type));

  it("content: the text with a note on what was left out, then image blocks", () => {
    expect(withImages("t", { images: [], skipped: [] })).toBe("t");
    expect(withImages("t", { images: [], skipped: [{ url: A, reason: "HTTP 404" }] })).toBe(`t\n(1 image(s) in the request could not be attached: ${A} — HTTP 404)`);
    expect(withImages("t", { images: [{ url: A, mimeType: "image/png", base64: "AAA=" }], skipped: [] })).toEqual([
      { type: "text", text: "t" },
      { type: "image_url", image_url: { url: "data:image/png;base64,AAA=" } },
    ]);
  });
});
