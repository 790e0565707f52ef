import { HumanMessage } from "@langchain/core/messages";
import nock from "nock";
import { describe, expect, it } from "vitest";
import type { LookupAll } from "../../src/net/http-guard.js";
import { attachRequestImages, fetchRequestImages, MAX_IMAGE_BYTES } from "../../src/github/request-images.js";

// Addresses the guard judges; no connection is made: nock answers every request.
const DNS: Record<string, string> = {
  "github.com": "140.82.112.3",
  "objects.githubusercontent.com": "185.199.108.133",
  "private-user-images.githubusercontent.com": "185.199.108.134",
  "user-images.githubusercontent.com": "10.0.0.7",
};
const lookup: LookupAll = async (host) => {
  const a = DNS[host];
  if (!a) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return [{ address: a, family: 4 }];
};
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(32, 1)]);
const A = "https://github.com/user-attachments/assets/abc";

describe("attack: images in a request, fetched by the worker", () => {
  it("our token goes to github.com only; the redirect to the storage host does not carry it", async () => {
    let storageAuth: string | undefined = "unset";
    nock("https://github.com", { reqheaders: { authorization: "token ghs_secret" } })
      .get("/user-attachments/assets/abc")
      .reply(302, "", { location: "https://objects.githubusercontent.com/x/abc.png?sig=1" });
    nock("https://objects.githubusercontent.com")
      .get("/x/abc.png")
      .query({ sig: "1" })
      .reply(function () {
        storageAuth = this.req.headers["authorization"] as string | undefined;
        return [200, PNG, { "content-type": "image/png" }];
      });
    const found = await fetchRequestImages([A], { token: "ghs_secret", lookup });
    expect(found.skipped).toEqual([]);
    expect(found.images).toEqual([{ url: A, mimeType: "image/png", base64: PNG.toString("base64") }]);
    expect(storageAuth).toBeUndefined();
  });

  it.each([
    ["an address inside the network (SSRF)", "https://user-images.githubusercontent.com/1.png", null, /private address/],
    [
      "a redirect to somewhere private",
      "https://private-user-images.githubusercontent.com/r.png",
      () =>
        nock("https://private-user-images.githubusercontent.com", { badheaders: ["authorization"] })
          .get("/r.png")
          .reply(302, "", { location: "http://169.254.169.254/latest/meta-data/" }),
      /169\.254\.169\.254/,
    ],
    [
      "HTML served as an image",
      "https://private-user-images.githubusercontent.com/h.png",
      () =>
        nock("https://private-user-images.githubusercontent.com", { badheaders: ["authorization"] })
          .get("/h.png")
          .reply(200, "<html>phish</html>", { "content-type": "image/png" }),
      /not a PNG, JPEG, GIF or WebP image/,
    ],
    [
      "SVG (script in an image)",
      "https://private-user-images.githubusercontent.com/s.svg",
      () =>
        nock("https://private-user-images.githubusercontent.com", { badheaders: ["authorization"] })
          .get("/s.svg")
          .reply(200, "<svg onload=alert(1)/>", { "content-type": "image/svg+xml" }),
      /not a PNG/,
    ],
    [
      "too large",
      "https://private-user-images.githubusercontent.com/big.png",
      () =>
        nock("https://private-user-images.githubusercontent.com", { badheaders: ["authorization"] })
          .get("/big.png")
          .reply(200, Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_BYTES)])),
      /larger than 5 MB/,
    ],
    [
      "gone",
      "https://private-user-images.githubusercontent.com/404.png",
      () =>
        nock("https://private-user-images.githubusercontent.com", { badheaders: ["authorization"] })
          .get("/404.png")
          .reply(404, "no"),
      /^HTTP 404$/,
    ],
  ])("%s: skipped with the reason, the run goes on", async (_t, url, mock, reason) => {
    mock?.();
    const found = await fetchRequestImages([url], { token: "ghs_secret", lookup });
    expect(found.images).toEqual([]);
    expect(found.skipped).toEqual([{ url, reason: expect.stringMatching(reason) }]);
  });

  it("only a person's request gets images, and the token is minted only when there is one", async () => {
    let minted = 0;
    const token = async () => ((minted += 1), "ghs_secret");
    const task = new HumanMessage("task");
    for (const trigger of ["ci_fix", "wakeup", "follow_up"]) expect(await attachRequestImages({ trigger, text: `![x](${A})` }, task, { token, lookup })).toBe(task);
    expect(await attachRequestImages({ trigger: "comment", text: "no images" }, task, { token, lookup })).toBe(task);
    expect(minted).toBe(0);
    nock("https://github.com").get("/user-attachments/assets/abc").reply(200, PNG);
    const withImage = await attachRequestImages({ trigger: "comment", text: `see ![x](${A})` }, task, { token, lookup });
    expect(withImage.content).toEqual([
      { type: "text", text: "task" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } },
    ]);
    expect(minted).toBe(1);
  });
});
