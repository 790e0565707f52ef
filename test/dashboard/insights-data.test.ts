import { describe, expect, it } from "vitest";
import { aggregateInsights, chartCsv, dayRange, histogramPercentile } from "../../src/dashboard/insights-data.js";
import { parseScope, scopeRepos } from "../../src/dashboard/insights-routes.js";
import { bucketMs, durationBucket, type InsightsDay } from "../../src/store/run-insights.js";

const DAYS = ["2026-11-29", "2026-11-30", "2026-12-01"];
/** A recorded day; its runs' durations as the `dur|<bucket>` counters the store keeps. */
function day(repo: string, d: string, counts: Record<string, number>, durationsMs: number[] = []): InsightsDay {
  const all = { ...counts };
  for (const ms of durationsMs) all[`dur|${durationBucket(ms)}`] = (all[`dur|${durationBucket(ms)}`] ?? 0) + 1;
  return { repo, day: d, counts: all };
}

describe("dayRange", () => {
  it.each([
    [Date.parse("2026-12-01T23:59:59Z"), 3, DAYS],
    [Date.parse("2026-12-01T00:00:00Z"), 1, ["2026-12-01"]],
    [Date.parse("2026-03-01T12:00:00Z"), 2, ["2026-02-28", "2026-03-01"]],
  ])("%s, %i days", (now, n, want) => expect(dayRange(now, n)).toEqual(want));
});

describe("duration buckets", () => {
  it.each([1, 999, 10_000, 94_000, 3_600_000])("%i ms comes back within 2.5%%", (ms) => {
    expect(Math.abs(bucketMs(durationBucket(ms)) - ms) / ms).toBeLessThanOrEqual(0.025);
  });
  it("0 ms is the first bucket", () => expect(bucketMs(durationBucket(0))).toBe(1));
});

describe("histogramPercentile (nearest rank over buckets)", () => {
  const h = (entries: [number, number][]) => new Map(entries);
  it.each([
    [h([]), 0.5, null],
    [h([[10, 0]]), 0.5, null],
    [h([[100, 1]]), 0.9, bucketMs(100)],
    [
      h([
        [100, 1],
        [110, 1],
        [120, 1],
        [130, 1],
      ]),
      0.5,
      bucketMs(110),
    ],
    [
      h([
        [130, 1],
        [100, 9],
      ]),
      0.9,
      bucketMs(100),
    ],
    [
      h([
        [130, 2],
        [100, 9],
      ]),
      0.9,
      bucketMs(130),
    ],
    [
      h([
        [100, 5],
        [200, 5],
      ]),
      1,
      bucketMs(200),
    ],
  ])("%j p%s", (hist, p, want) => expect(histogramPercentile(hist, p)).toBe(want));
});

describe("aggregateInsights", () => {
  const rows = [
    day(
      "octo/a",
      "2026-11-29",
      { "runs|completed": 2, "runs|failed": 1, "usd_micros|sonnet": 1_500_000, "tokens_in|sonnet": 1000, "tokens_out|sonnet": 200, "findings|raised": 3 },
      [60_000, 120_000, 30_000],
    ),
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
    [
      "runs",
      [
        ["completed", [3, 0, 0]],
        ["failed", [1, 0, 0]],
        ["pr_opened", [0, 0, 1]],
      ],
    ],
    [
      "cost",
      [
        ["opus", [0.25, 0, 0]],
        ["sonnet", [1.5, 0, 0]],
      ],
    ],
    ["tokens", [["sonnet", [1200, 0, 0]]]],
    [
      "autofix",
      [
        ["no_change", [0, 0, 1]],
        ["pushed", [1, 0, 0]],
      ],
    ],
    [
      "findings",
      [
        ["raised", [3, 0, 0]],
        ["fixed", [0, 0, 2]],
        ["dismissed", [0, 0, 1]],
      ],
    ],
    // Durations within 2.5%: 30 s, 60 s, 90 s, 120 s on the first day, 10 s on the last.
    [
      "duration",
      [
        ["median", [58.6, null, 10.1]],
        ["p90", [121.7, null, 10.1]],
      ],
    ],
  ])("%s: summed over repositories per day", (id, want) => {
    expect(chart(id).series.map((s) => [s.name, s.values])).toEqual(want);
  });

  it("totals over the window only", () => {
    expect(out.totals).toEqual({ runs: 5, usd: 1.75, tokens: 1200, medianMs: 58_559, p90Ms: 121_740 });
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
    [
      {
        id: "cost",
        title: "t",
        unit: "USD",
        series: [
          { name: "=cmd()", values: [1, 2, 3] },
          { name: 'a,"b"', values: [0, 0, 0] },
        ],
      },
      `day,'=cmd() (USD),"a,""b"" (USD)"\r\n2026-11-29,1,0\r\n2026-11-30,2,0\r\n2026-12-01,3,0\r\n`,
    ],
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
