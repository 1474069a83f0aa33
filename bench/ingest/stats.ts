/** Small helpers shared by the ingest benchmarks: percentiles, rates, printing. */

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export const ms = (value: number): string => `${value.toFixed(2)} ms`;
export const perSecond = (value: number): string => `${Math.round(value).toLocaleString('en')}/s`;
export const ratio = (value: number, ceiling: number): string =>
  `${((value / ceiling) * 100).toFixed(1)}% of ceiling`;

export const sleep = (msDelay: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, msDelay));

export function log(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export function verdict(ok: boolean): string {
  return ok ? 'PASS' : 'FAIL';
}
