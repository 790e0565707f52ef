import { runSetupSeconds, runYieldSeconds } from "../src/observability/metrics.js";

type Totals = Record<string, { sum: number; count: number }>;

/** What `open_swe_run_setup_seconds` holds now, per phase (this process's runs). */
export async function setupTotals(): Promise<Totals> {
  const out: Totals = {};
  for (const v of (await runSetupSeconds.get()).values) {
    const phase = String(v.labels["phase"] ?? "");
    const which = v.metricName?.endsWith("_sum") ? "sum" : v.metricName?.endsWith("_count") ? "count" : null;
    if (!phase || !which) continue;
    out[phase] ??= { sum: 0, count: 0 };
    out[phase][which] = v.value;
  }
  return out;
}

/** Mean ms per phase between two snapshots, in the phases' order, and their total. */
export function setupPhaseMeans(before: Totals, after: Totals): Record<string, number> {
  const means: Record<string, number> = {};
  let total = 0;
  for (const phase of ["claim", "config", "model", "workspace", "tools", "inputs", "agent"]) {
    const a = after[phase];
    const b = before[phase] ?? { sum: 0, count: 0 };
    if (!a || a.count === b.count) continue;
    means[phase] = Math.round(((a.sum - b.sum) / (a.count - b.count)) * 1000);
    total += means[phase];
  }
  return { ...means, total };
}

export const phaseLine = (means: Record<string, number>) =>
  Object.entries(means)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");

/** Seconds runs under way have waited for starting runs so far (`open_swe_run_yield_seconds_total`). */
export async function yieldedSeconds(): Promise<number> {
  return (await runYieldSeconds.get()).values[0]?.value ?? 0;
}
