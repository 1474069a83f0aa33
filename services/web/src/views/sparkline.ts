import { html, type SafeHtml } from './html.js';

/**
 * Small last-hour charts drawn on the server as inline SVG (no chart library, no script needed to
 * show them). public/ops.js swaps in the `d` of each path from the figures endpoint, so the
 * geometry is computed here only.
 */
export const SPARK_WIDTH = 120;
export const SPARK_HEIGHT = 32;

/** Up to a few series over the same minutes; `null` is a minute without a value (a gap). */
export type Series = readonly (number | null)[];

/**
 * An SVG path per series, on one scale (the highest value of all, at least 1). A minute without a
 * value is stepped over (the line joins its neighbours: samples can be sparse on a fresh
 * deployment), and a lone point is drawn as a dot.
 */
export function sparkPaths(series: readonly Series[]): string[] {
  const peak = Math.max(1, ...series.flatMap((s) => s.filter((v): v is number => v !== null)));
  return series.map((values) => {
    const step = values.length > 1 ? SPARK_WIDTH / (values.length - 1) : 0;
    const points = values.flatMap((value, i) =>
      value === null
        ? []
        : [
            `${(i * step).toFixed(1)} ${(SPARK_HEIGHT - 2 - (value / peak) * (SPARK_HEIGHT - 4)).toFixed(1)}`,
          ],
    );
    if (points.length === 0) return '';
    return points.length === 1 ? `M${points[0]}h0.5` : `M${points.join('L')}`;
  });
}

export interface Chart {
  /** What a screen reader hears instead of the picture: the latest value and the peak. */
  label: string;
  paths: string[];
}

export function chart(series: readonly Series[], describe: (peak: number) => string): Chart {
  const peak = Math.max(0, ...series.flatMap((s) => s.filter((v): v is number => v !== null)));
  return { label: describe(peak), paths: sparkPaths(series) };
}

/** The chart's SVG; `key` ties it to its entry in the figures JSON. */
export function sparkline(key: string, value: Chart): SafeHtml {
  return html`<svg
    class="spark"
    data-chart="${key}"
    role="img"
    aria-label="${value.label}"
    viewBox="0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}"
    width="${SPARK_WIDTH}"
    height="${SPARK_HEIGHT}"
    preserveAspectRatio="none"
  >
    ${value.paths.map((d, i) => html`<path class="series-${i}" d="${d}" />`)}
  </svg>`;
}
