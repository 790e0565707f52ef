import { gunzipSync } from "node:zlib";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { DashboardEnv } from "../../src/dashboard/dashboard-deps.js";
import { mountStaticAssets } from "../../src/dashboard/static-assets.js";

const app = new Hono<DashboardEnv>();
mountStaticAssets(app);

describe("dashboard assets: compressed when accepted, 304 when unchanged", () => {
  it("primer.css goes gzip-compressed to a browser that accepts it, several times smaller", async () => {
    const plain = await app.request("/app/static/primer.css");
    const full = await plain.text();
    expect(full.length).toBeGreaterThan(500_000);
    const res = await app.request("/app/static/primer.css", { headers: { "accept-encoding": "gzip, deflate, br" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("content-type")).toBe("text/css; charset=utf-8");
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBeLessThan(full.length / 4);
    expect(gunzipSync(body).toString("utf8")).toBe(full);
  });

  it("a client that accepts no compression gets the plain body", async () => {
    const res = await app.request("/app/static/app.css", { headers: { "accept-encoding": "identity" } });
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(await res.text()).toMatch(/\{/);
  });

  it("answers 304 with no body to If-None-Match with the asset's ETag, 200 to another", async () => {
    const first = await app.request("/app/static/primer.css", { headers: { "accept-encoding": "gzip" } });
    const tag = first.headers.get("etag");
    expect(tag).toMatch(/^(W\/)?"[^"]+"$/);
    expect(first.headers.get("cache-control")).toBe("max-age=300");
    const again = await app.request("/app/static/primer.css", { headers: { "accept-encoding": "gzip", "if-none-match": tag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const other = await app.request("/app/static/live.js", { headers: { "if-none-match": tag! } });
    expect(other.status).toBe(200);
  });
});
