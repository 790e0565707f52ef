import { describe, expect, it } from "vitest";
import { aggregateInsights, chartCsv, dayRange, percentile } from "../../src/dashboard/insights-data.js";
import { parseScope, scopeRepos } from "../../src/dashboard/insights-routes.js";
import type { InsightsDay } from "../../src/store/run-insights.js";

const DAYS = ["2026-11-29", "2026-11-30", "2026-12-01"];
const day = (repo: string, d: string, counts: Record<string, number>, durationsMs: number[] = []): InsightsDay => ({ repo, day: d, counts, durationsMs });

describe("dayRange", () => {
  it.each([
    [Date.parse("2026-12-01T23:59:59Z"), 3, DAYS],
    [Date.parse("2026-12-01T00:00:00Z"), 1, ["2026-12-01"]],
    [Date.parse("2026-03-01T12:00:00Z"), 2, ["2026-02-28", "2026-03-01"]],
  ])("%s, %i days", (now, n, want) => expect(dayRange(now, n)).toEqual(want));
});

describe("percentile (nearest rank)", () => {
  it.each([
    [[], 0.5, null],
    [[7], 0.9, 7],
    [[1, 2, 3, 4], 0.5, 2],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9, 9],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 0.9, 10],
    [[5, 10], 1, 10],
  ])("%j p%s", (xs, p, want) => expect(percentile(xs, p)).toBe(want));
});

describe("aggregateInsights", () => {
  const rows = [
    day("octo/a", "2026-11-29", { "runs|completed": 2, "runs|failed": 1, "usd_micros|sonnet": 1_500_000, "tokens_in|sonnet": 1000, "tokens_out|sonnet": 200, "findings|raised": 3 }, [60_000, 120_000, 30_000]),
    day("octo/b", "2026-11-29", { "runs|completed": 1, "usd_micros|opus": 250_000, "autofix|pushed": 1 }, [90_000]),
    day("octo/a", "2026-12-01", { "runs|pr_opened": 1, "findings|fixed": 2, "findings|dismissed": 1, "autofix|no_change": 1 }, [10_000]),
    // Outside the window: left out of everything.
    day("octo/a", "2026-11-01", { "runs|completed": 50, "usd_micros|sonnet": 9_000_000 }, [1]),
    // A field of another kind, or none: ignored.
    day("octo/a", "2026-11-30", { stray: 4, "other|x": 1 }),
  ];
  const out = aggregateInsights(rows, DAYS);
  const chart = (id: string) => out.charts.find((c) => c.id === id)!;

  it.each([
    ["runs", [["completed", [3, 0, 0]], ["failed", [1, 0, 0]], ["pr_opened", [0, 0, 1]]]],
    ["cost", [["opus", [0.25, 0, 0]], ["sonnet", [1.5, 0, 0]]]],
    ["tokens", [["sonnet", [1200, 0, 0]]]],
    ["autofix", [["no_change", [0, 0, 1]], ["pushed", [1, 0, 0]]]],
    ["findings", [["raised", [3, 0, 0]], ["fixed", [0, 0, 2]], ["dismissed", [0, 0, 1]]]],
    ["duration", [["median", [60, null, 10]], ["p90", [120, null, 10]]]],
  ])("%s: summed over repositories per day", (id, want) => {
    expect(chart(id).series.map((s) => [s.name, s.values])).toEqual(want);
  });

  it("totals over the window only", () => {
    expect(out.totals).toEqual({ runs: 5, usd: 1.75, tokens: 1200, medianMs: 60_000, p90Ms: 120_000 });
  });

  it("an empty window has no series and no durations", () => {
    const none = aggregateInsights([], DAYS);
    expect(none.charts.every((c) => c.series.length === 0)).toBe(true);
    expect(none.totals).toEqual({ runs: 0, usd: 0, tokens: 0, medianMs: null, p90Ms: null });
  });
});

describe("chartCsv", () => {
  it.each([
    [{ id: "runs", title: "t", unit: "runs", series: [{ name: "completed", values: [3, 0, 1] }] }, "day,completed (runs)\r\n2026-11-29,3\r\n2026-11-30,0\r\n2026-12-01,1\r\n"],
    [{ id: "duration", title: "t", unit: "seconds", series: [{ name: "median", values: [60, null, 10] }] }, "day,median (seconds)\r\n2026-11-29,60\r\n2026-11-30,\r\n2026-12-01,10\r\n"],
    // A model name that would be a spreadsheet formula, or holds a comma or a quote.
    [{ id: "cost", title: "t", unit: "USD", series: [{ name: "=cmd()", values: [1, 2, 3] }, { name: 'a,"b"', values: [0, 0, 0] }] }, `day,'=cmd() (USD),"a,""b"" (USD)"\r\n2026-11-29,1,0\r\n2026-11-30,2,0\r\n2026-12-01,3,0\r\n`],
    [{ id: "autofix", title: "t", unit: "runs", series: [] }, "day\r\n2026-11-29\r\n2026-11-30\r\n2026-12-01\r\n"],
  ] as const)("%#", (chart, want) => expect(chartCsv(DAYS, chart as never)).toBe(want));
});

describe("scopes", () => {
  const repos = ["octo/a", "octo/b", "acme/x"];
  it.each([
    ["", { kind: "all" }, repos],
    ["team:Octo", { kind: "team", owner: "octo" }, ["octo/a", "octo/b"]],
    ["repo:ACME/x", { kind: "repo", repo: "acme/x" }, ["acme/x"]],
    ["repo:acme/secret", { kind: "repo", repo: "acme/secret" }, []],
    ["team:nobody", { kind: "team", owner: "nobody" }, []],
  ])("%j", (value, scope, want) => {
    expect(parseScope(value)).toEqual(scope);
    expect(scopeRepos(repos, parseScope(value))).toEqual(want);
  });
});
