import axe from "axe-core";
import type { Page } from "playwright-core";
import { expect } from "vitest";

interface Serious {
  id: string;
  impact: string;
  nodes: string[];
}

/** axe-core in the page (evaluated over the DevTools protocol, so the page's CSP stays as strict as served). */
export async function seriousViolations(page: Page): Promise<Serious[]> {
  await page.evaluate(axe.source);
  const results = await page.evaluate<axe.AxeResults>('axe.run(document, { resultTypes: ["violations"] })');
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => ({ id: v.id, impact: v.impact ?? "", nodes: v.nodes.map((n) => n.target.join(" ")) }));
}

/** What every page must hold at every size and scheme: no sideways scroll, no serious axe finding, no CSP refusal. */
export async function checkPage(page: Page, label: string, cspErrors: string[]): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate<{ scrollWidth: number; innerWidth: number }>("({ scrollWidth: document.scrollingElement.scrollWidth, innerWidth: window.innerWidth })");
  expect(scrollWidth, `${label} scrolls sideways`).toBeLessThanOrEqual(innerWidth);
  expect(await seriousViolations(page), `${label} axe`).toEqual([]);
  expect(cspErrors, `${label} CSP`).toEqual([]);
}

/** The sizes and color schemes every page is checked at. */
export const VIEWS = [
  { width: 390, height: 844, scheme: "light" },
  { width: 390, height: 844, scheme: "dark" },
  { width: 1280, height: 900, scheme: "light" },
  { width: 1280, height: 900, scheme: "dark" },
] as const;
