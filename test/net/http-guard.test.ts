import nock from "nock";
import { describe, expect, it } from "vitest";
import { guardedFetch, resolvePublicUrl, type LookupAll } from "../../src/net/http-guard.js";

const DNS: Record<string, string[]> = {
  "api.example.com": ["93.184.216.34"],
  "cdn.example.net": ["93.184.216.35"],
  "internal.example.com": ["10.0.0.5"],
  "rebind.example.com": ["93.184.216.36", "127.0.0.1"],
  "v6.example.com": ["2606:4700::6810:84e5"],
  localhost: ["127.0.0.1", "::1"],
};
const lookup: LookupAll = async (host) => {
  const found = DNS[host];
  if (!found) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  return p.then(
    () => undefined,
    (err: { code?: string }) => err.code,
  );
}

describe("resolvePublicUrl", () => {
  it.each([
    ["http://internal.example.com/", "url_blocked"],
    ["http://rebind.example.com/", "url_blocked"],
    ["http://localhost:8080/", "url_blocked"],
    ["http://127.0.0.1/", "url_blocked"],
    ["http://[::1]/", "url_blocked"],
    ["http://169.254.169.254/latest/meta-data/", "url_blocked"],
    ["http://[fd00:ec2::254]/", "url_blocked"],
    ["http://0.0.0.0/", "url_blocked"],
    ["http://[::ffff:10.0.0.1]/", "url_blocked"],
    ["file:///etc/passwd", "url_invalid"],
    ["gopher://api.example.com/", "url_invalid"],
    ["not a url", "url_invalid"],
    ["http://nowhere.example.org/", "url_invalid"],
  ])("refuses %s with %s", async (url, code) => {
    expect(await codeOf(resolvePublicUrl(url, lookup))).toBe(code);
  });

  it("names the offending address in the message", async () => {
    await expect(resolvePublicUrl("http://rebind.example.com/", lookup)).rejects.toThrow(/127\.0\.0\.1, a loopback address/);
  });

  it("accepts public v4 and v6 hosts", async () => {
    expect((await resolvePublicUrl("https://api.example.com/x", lookup)).addresses).toEqual([{ address: "93.184.216.34", family: 4 }]);
    expect((await resolvePublicUrl("https://v6.example.com/", lookup)).addresses[0]?.family).toBe(6);
  });
});

describe("guardedFetch", () => {
  it("returns status, headers and body from a public host", async () => {
    nock("https://api.example.com").get("/v1/thing").reply(200, { ok: true }, { "content-type": "application/json" });
    const res = await guardedFetch("https://api.example.com/v1/thing", { lookup });
    expect(res).toMatchObject({ status: 200, body: '{"ok":true}', truncated: false, redirects: [] });
    expect(res.headers["content-type"]).toBe("application/json");
  });

  it("re-checks a redirect to the metadata address and refuses it", async () => {
    nock("https://api.example.com").get("/go").reply(302, "", { location: "http://169.254.169.254/latest/meta-data/" });
    await expect(guardedFetch("https://api.example.com/go", { lookup })).rejects.toMatchObject({ code: "url_blocked" });
  });

  it("re-checks a redirect to a hostname that resolves privately", async () => {
    nock("https://api.example.com").get("/go").reply(301, "", { location: "http://internal.example.com/admin" });
    await expect(guardedFetch("https://api.example.com/go", { lookup })).rejects.toThrow(/10\.0\.0\.5, a private address/);
  });

  it("re-checks a redirect against this machine's own addresses, read again at that hop", async () => {
    // The worker's public address: 93.184.216.35 (cdn.example.net) becomes one of its own between hops.
    const own = new Set<string>();
    nock("https://api.example.com")
      .get("/go")
      .reply(() => {
        own.add("93.184.216.35");
        return [302, "", { location: "https://cdn.example.net/admin" }];
      });
    await expect(guardedFetch("https://api.example.com/go", { lookup, hostAddresses: () => own })).rejects.toThrow(/cdn\.example\.net resolves to 93\.184\.216\.35, an address of this machine/);
  });

  it("follows safe redirects, relative ones included, and reports the final URL", async () => {
    nock("https://api.example.com").get("/a").reply(302, "", { location: "/b" }).get("/b").reply(307, "", { location: "https://cdn.example.net/c" });
    nock("https://cdn.example.net").get("/c").reply(200, "final");
    const res = await guardedFetch("https://api.example.com/a", { lookup });
    expect(res.body).toBe("final");
    expect(res.url).toBe("https://cdn.example.net/c");
    expect(res.redirects).toEqual(["https://api.example.com/b", "https://cdn.example.net/c"]);
  });

  it("stops after five redirects", async () => {
    const scope = nock("https://api.example.com");
    for (let i = 0; i < 6; i += 1) scope.get(`/r${i}`).reply(302, "", { location: `/r${i + 1}` });
    await expect(guardedFetch("https://api.example.com/r0", { lookup })).rejects.toMatchObject({ code: "too_many_redirects" });
  });

  it("turns a POST into a GET on 303 and drops credentials when the origin changes", async () => {
    nock("https://api.example.com").post("/submit", "payload").matchHeader("authorization", "Bearer t").reply(303, "", { location: "https://cdn.example.net/done" });
    nock("https://cdn.example.net", { badheaders: ["authorization"] })
      .get("/done")
      .reply(200, "done");
    const res = await guardedFetch("https://api.example.com/submit", { lookup, method: "POST", body: "payload", headers: { Authorization: "Bearer t" } });
    expect(res.body).toBe("done");
  });

  it("caps the body size", async () => {
    nock("https://api.example.com").get("/big").reply(200, "x".repeat(5000));
    const res = await guardedFetch("https://api.example.com/big", { lookup, maxBytes: 100 });
    expect(res.body).toHaveLength(100);
    expect(res.truncated).toBe(true);
  });

  it("caps the time", async () => {
    nock("https://api.example.com").get("/slow").delay(500).reply(200, "late");
    await expect(guardedFetch("https://api.example.com/slow", { lookup, timeoutMs: 50 })).rejects.toMatchObject({ code: "http_timeout" });
  });
});
