import { plural } from './format.js';
import { html, type SafeHtml } from './html.js';

/**
 * Two kinds of small chart, both inline SVG drawn on the server.
 *
 * The Ops page's last-hour charts drawn on the server as inline SVG (no chart library, no script needed to
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

/**
 * The chart's SVG; `key` ties it to its entry in the figures JSON. A faint baseline spans the whole
 * hour, so a series that only has its last minutes (a fresh deployment) reads as recent, not cut.
 * It is a `line`, not a `path`: public/ops.js replaces the paths by index.
 */
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
    <line
      class="spark-axis"
      x1="0"
      y1="${SPARK_HEIGHT - 1}"
      x2="${SPARK_WIDTH}"
      y2="${SPARK_HEIGHT - 1}"
    />
    ${value.paths.map((d, i) => html`<path class="series-${i}" d="${d}" />`)}
  </svg>`;
}

/**
 * The Errors list's chart: a small bar chart of daily counts as inline SVG (no script, no inline style: the CSP allows
 * neither). It is one image to assistive technology, named by its total, since bars read aloud
 * one by one say nothing useful.
 */

const BAR = 5;
const GAP = 1;
const HEIGHT = 22;

export function dailyBars(counts: readonly number[], days = counts.length): SafeHtml {
  const total = counts.reduce((a, b) => a + b, 0);
  return countBars(counts, `${plural(total, 'occurrence')} in the last ${days} days`);
}

/**
 * Bars of counts, oldest first, named by `label`; the group page draws its 24-hour and 14-day
 * charts with wider, taller bars than the list's.
 */
export function countBars(
  counts: readonly number[],
  label: string,
  shape: { bar: number; height: number; className?: string } = { bar: BAR, height: HEIGHT },
): SafeHtml {
  const { bar, height } = shape;
  const max = Math.max(1, ...counts);
  const width = counts.length * (bar + GAP) - GAP;
  return html`<svg
    class="${shape.className ?? 'sparkline'}"
    role="img"
    aria-label="${label}"
    width="${width}"
    height="${height}"
    viewBox="0 0 ${width} ${height}"
  >
    <title>${label}</title>
    ${counts.map((n, i) => {
      // A bar with occurrences gets at least 3 px so a single one is visible next to a spike.
      const h = n === 0 ? 1 : Math.max(3, Math.round((n / max) * height));
      return html`<rect
        class="${n === 0 ? 'none' : 'some'}"
        x="${i * (bar + GAP)}"
        y="${height - h}"
        width="${bar}"
        height="${h}"
      />`;
    })}
  </svg>`;
}
