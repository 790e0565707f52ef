import { bucketMs, type InsightsDay } from "../store/run-insights.js";

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

/** A duration histogram: bucket → how many runs (`dur|<bucket>` counters). */
type Histogram = Map<number, number>;

/** Pure: the nearest-rank percentile (0 < p ≤ 1) of a duration histogram, in ms; null when empty. */
export function histogramPercentile(hist: Histogram, p: number): number | null {
  const buckets = [...hist.entries()].filter(([, n]) => n > 0).sort(([a], [b]) => a - b);
  const total = buckets.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (const [b, n] of buckets) if ((seen += n) >= rank) return bucketMs(b);
  return bucketMs(buckets.at(-1)![0]);
}

function addDurations(into: Histogram, counts: Record<string, number>): Histogram {
  for (const [field, n] of Object.entries(counts)) if (field.startsWith("dur|")) into.set(Number(field.slice(4)), (into.get(Number(field.slice(4))) ?? 0) + n);
  return into;
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
      const values =
        sums.get(name) ??
        sums
          .set(
            name,
            days.map(() => 0),
          )
          .get(name)!;
      values[i]! += n;
    }
  }
  return [...sums.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, values]) => ({ name, values: values.map((v) => (scale === 1 ? v : Math.round((v / scale) * 10_000) / 10_000)) }));
}

/**
 * Pure: the Insights page's charts from the recorded repository-days: runs per day by outcome, USD and
 * tokens per day by model, median and p90 run duration per day (seconds, within 2.5%), CI fix results, review
 * findings raised / fixed / dismissed; and the window's totals.
 */
export function aggregateInsights(rows: readonly InsightsDay[], days: readonly string[]): Insights {
  const inWindow = new Set(days);
  const mine = rows.filter((r) => inWindow.has(r.day));
  const byDay = new Map(days.map((d) => [d, new Map() as Histogram]));
  const all: Histogram = new Map();
  for (const r of mine) {
    addDurations(byDay.get(r.day)!, r.counts);
    addDurations(all, r.counts);
  }
  const durations = [...byDay.values()];
  const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms / 100) / 10);
  const findings = byName(mine, days, ["findings"]);
  const runs = byName(mine, days, ["runs"]);
  const cost = byName(mine, days, ["usd_micros"], 1_000_000);
  const tokens = byName(mine, days, ["tokens_in", "tokens_out"]);
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
        series:
          all.size === 0
            ? []
            : [
                { name: "median", values: durations.map((d) => seconds(histogramPercentile(d, 0.5))) },
                { name: "p90", values: durations.map((d) => seconds(histogramPercentile(d, 0.9))) },
              ],
      },
      { id: "autofix", title: "CI autofix runs by result", unit: "runs", series: byName(mine, days, ["autofix"]) },
      {
        id: "findings",
        title: "Review findings",
        unit: "findings",
        series: findings.length === 0 ? [] : FINDINGS.map((name) => findings.find((s) => s.name === name) ?? { name, values: days.map(() => 0) }),
      },
    ],
    totals: { runs: total(runs), usd: Math.round(total(cost) * 10_000) / 10_000, tokens: total(tokens), medianMs: histogramPercentile(all, 0.5), p90Ms: histogramPercentile(all, 0.9) },
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
