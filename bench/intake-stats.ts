/** The middle of a list (the upper middle for an even length). */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The `p` quantile (0..1) of a list sorted ascending. */
export const quantile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** Median and range of per-round ratios, three decimals: what one run of the bench can be believed to. */
export function spreadOf(xs: readonly number[]): Spread {
  const r = (x: number) => Number(x.toFixed(3));
  return { median: r(median(xs)), min: r(Math.min(...xs)), max: r(Math.max(...xs)) };
}

export const fmtSpread = (s: Spread): string => `${s.median} [${s.min}–${s.max}]`;

/** The 1-, 5- and 15-minute load averages (Linux), or null elsewhere. */
export function loadAverage(read: () => string): string | null {
  try {
    return read().split(" ").slice(0, 3).join(" ");
  } catch {
    return null;
  }
}
