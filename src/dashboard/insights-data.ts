import type { InsightsDay } from "../store/run-insights.js";

export const CHART_IDS = ["runs", "cost", "tokens", "duration", "autofix", "findings"] as const;
export type ChartId = (typeof CHART_IDS)[number];

/** One line of a chart: a value per day; null where the day has nothing to measure (a duration without runs). */
export interface Series {
  name: string;
  values: (number | null)[];
}

export interface Chart {
  id: ChartId;
  title: string;
  /** What a value is, for the axis and the CSV header. */
  unit: string;
  series: Series[];
}

export interface Insights {
  days: string[];
  charts: Chart[];
  totals: { runs: number; usd: number; tokens: number; medianMs: number | null; p90Ms: number | null };
}

const DAY_MS = 86_400_000;
const FINDINGS = ["raised", "fixed", "dismissed"] as const;

/** Pure: the `n` UTC days up to and including `now`'s, oldest first. */
export function dayRange(now: number, n: number): string[] {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return Array.from({ length: n }, (_, i) => new Date(today - (n - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

/** Pure: the nearest-rank percentile (0 < p ≤ 1) of ascending values; null for none. */
export function percentile(ascending: readonly number[], p: number): number | null {
  if (ascending.length === 0) return null;
  return ascending[Math.min(ascending.length - 1, Math.max(0, Math.ceil(p * ascending.length) - 1))]!;
}

/** Per day, the sum over repositories of every counter whose field starts with `kind|`, by the rest of the field. */
function byName(rows: readonly InsightsDay[], days: readonly string[], kinds: readonly string[], scale = 1): Series[] {
  const at = new Map(days.map((d, i) => [d, i]));
  const sums = new Map<string, number[]>();
  for (const row of rows) {
    const i = at.get(row.day);
    if (i === undefined) continue;
    for (const [field, n] of Object.entries(row.counts)) {
      const bar = field.indexOf("|");
      if (bar < 0 || !kinds.includes(field.slice(0, bar))) continue;
      const name = field.slice(bar + 1);
      const values = sums.get(name) ?? sums.set(name, days.map(() => 0)).get(name)!;
      values[i]! += n;
    }
  }
  return [...sums.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, values]) => ({ name, values: values.map((v) => (scale === 1 ? v : Math.round((v / scale) * 10_000) / 10_000)) }));
}

/**
 * Pure: the Insights page's charts from the recorded repository-days: runs per day by outcome, USD and
 * tokens per day by model, median and p90 run duration per day (seconds), CI fix results, review
 * findings raised / fixed / dismissed; and the window's totals.
 */
export function aggregateInsights(rows: readonly InsightsDay[], days: readonly string[]): Insights {
  const inWindow = new Set(days);
  const mine = rows.filter((r) => inWindow.has(r.day));
  const durations = days.map((d) => mine.filter((r) => r.day === d).flatMap((r) => r.durationsMs).sort((a, b) => a - b));
  const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms / 100) / 10);
  const findings = byName(mine, days, ["findings"]);
  const runs = byName(mine, days, ["runs"]);
  const cost = byName(mine, days, ["usd_micros"], 1_000_000);
  const tokens = byName(mine, days, ["tokens_in", "tokens_out"]);
  const all = durations.flat().sort((a, b) => a - b);
  const total = (series: Series[]) => series.reduce((s, x) => s + x.values.reduce<number>((a, v) => a + (v ?? 0), 0), 0);
  return {
    days: [...days],
    charts: [
      { id: "runs", title: "Runs per day by outcome", unit: "runs", series: runs },
      { id: "cost", title: "Cost per day by model", unit: "USD", series: cost },
      { id: "tokens", title: "Tokens per day by model", unit: "tokens", series: tokens },
      {
        id: "duration",
        title: "Run duration per day",
        unit: "seconds",
        series: all.length === 0 ? [] : [
          { name: "median", values: durations.map((d) => seconds(percentile(d, 0.5))) },
          { name: "p90", values: durations.map((d) => seconds(percentile(d, 0.9))) },
        ],
      },
      { id: "autofix", title: "CI autofix runs by result", unit: "runs", series: byName(mine, days, ["autofix"]) },
      { id: "findings", title: "Review findings", unit: "findings", series: findings.length === 0 ? [] : FINDINGS.map((name) => findings.find((s) => s.name === name) ?? { name, values: days.map(() => 0) }) },
    ],
    totals: { runs: total(runs), usd: Math.round(total(cost) * 10_000) / 10_000, tokens: total(tokens), medianMs: percentile(all, 0.5), p90Ms: percentile(all, 0.9) },
  };
}

/** A CSV cell: quoted when it holds a separator, a quote or a line end; a leading formula sign is defused. */
function cell(v: string | number | null): string {
  if (v === null) return "";
  const s = typeof v === "number" ? String(v) : /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** Pure: one chart as CSV, a row per day (`day,<series…>`), the unit in the header. */
export function chartCsv(days: readonly string[], chart: Chart): string {
  const header = ["day", ...chart.series.map((s) => `${s.name} (${chart.unit})`)].map(cell).join(",");
  const rows = days.map((d, i) => [d, ...chart.series.map((s) => s.values[i] ?? null)].map(cell).join(","));
  return `${[header, ...rows].join("\r\n")}\r\n`;
}
