import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Hono, MiddlewareHandler } from "hono";
import { compress } from "hono/compress";
import { etag } from "hono/etag";
import type { DashboardEnv } from "./dashboard-deps.js";
import { CSS } from "./views/layout.js";
import { RUN_PAGE_CSS } from "./views/conversation-view.js";
import { INSIGHTS_JS } from "./views/insights-script.js";
import { LIVE_JS } from "./views/live-script.js";

/** GitHub's Primer CSS from the pinned package, read once: served by us, never from a CDN. */
const PRIMER_CSS = readFileSync(createRequire(import.meta.url).resolve("@primer/css/dist/primer.css"), "utf8");
/** uPlot (the Insights charts) from the pinned package, the same way. */
const UPLOT_JS = readFileSync(createRequire(import.meta.url).resolve("uplot/dist/uPlot.iife.min.js"), "utf8");
const UPLOT_CSS = readFileSync(createRequire(import.meta.url).resolve("uplot/dist/uPlot.min.css"), "utf8");
/** diff2html's stylesheet from the pinned package, for the diff a run pushed (rendered on the server). */
const DIFF2HTML_CSS = readFileSync(createRequire(import.meta.url).resolve("diff2html/bundles/css/diff2html.min.css"), "utf8");

/** The dashboard's favicon: a pull-request glyph, drawn in the browser's text color (light or dark). */
const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><style>path{fill:#1f2328}@media (prefers-color-scheme:dark){path{fill:#f0f6fc}}</style><path d="M1.5 3.25a2.25 2.25 0 1 1 3 2.122v5.256a2.251 2.251 0 1 1-1.5 0V5.372A2.25 2.25 0 0 1 1.5 3.25Zm5.677-.177L9.573.677A.25.25 0 0 1 10 .854V2.5h1A2.5 2.5 0 0 1 13.5 5v5.628a2.251 2.251 0 1 1-1.5 0V5a1 1 0 0 0-1-1h-1v1.646a.25.25 0 0 1-.427.177L7.177 3.427a.25.25 0 0 1 0-.354ZM3.75 2.5a.75.75 0 1 0 0 1.5.75.75 0 0 0 0-1.5Zm0 9.5a.75.75 0 1 0 0 1.5.75.75 0 0 0 0-1.5Zm8.25.75a.75.75 0 1 0 1.5 0 .75.75 0 0 0-1.5 0Z"/></svg>`;

const ASSETS: Record<string, { type: string; body: string }> = {
  "primer.css": { type: "text/css; charset=utf-8", body: PRIMER_CSS },
  "diff2html.css": { type: "text/css; charset=utf-8", body: DIFF2HTML_CSS },
  "app.css": { type: "text/css; charset=utf-8", body: CSS + RUN_PAGE_CSS },
  "live.js": { type: "text/javascript; charset=utf-8", body: LIVE_JS },
  "uplot.js": { type: "text/javascript; charset=utf-8", body: UPLOT_JS },
  "uplot.css": { type: "text/css; charset=utf-8", body: UPLOT_CSS },
  "insights.js": { type: "text/javascript; charset=utf-8", body: INSIGHTS_JS },
  "favicon.svg": { type: "image/svg+xml", body: FAVICON_SVG },
};

/**
 * `/app/static/*`, open before sign-in: the sign-in page uses them too. Compressed when the browser
 * accepts it (Hono's `compress`: gzip or deflate) and tagged (Hono's `etag`, on the uncompressed body):
 * after the 5 minutes, the browser asks again and a 304 answers, not the megabyte of Primer.
 */
export function mountStaticAssets(app: Hono<DashboardEnv>): void {
  app.use("/app/static/*", compress(), etag());
  for (const [name, a] of Object.entries(ASSETS)) {
    app.get(`/app/static/${name}`, (c) => c.body(a.body, 200, { "content-type": a.type, "cache-control": "max-age=300" }));
  }
}

/** Pure: bull-board's page without its Google Fonts stylesheet (it falls back to the system fonts). */
export function withoutThirdPartyFonts(page: string): string {
  return page.replace(/<link\b[^>]*href="https:\/\/fonts\.(?:googleapis|gstatic)\.com[^"]*"[^>]*>\s*/g, "");
}

/** Rewrites bull-board's HTML pages so that opening the queue view never asks a third party for fonts. */
export const stripBullBoardFonts: MiddlewareHandler = async (c, next) => {
  await next();
  if (!c.res.headers.get("content-type")?.startsWith("text/html")) return;
  const headers = new Headers(c.res.headers);
  headers.delete("content-length");
  c.res = new Response(withoutThirdPartyFonts(await c.res.text()), { status: c.res.status, headers });
};
