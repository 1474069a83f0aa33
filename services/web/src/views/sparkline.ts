import { plural } from './format.js';
import { html, type SafeHtml } from './html.js';

/**
 * A small bar chart of daily counts as inline SVG (no script, no inline style: the CSP allows
 * neither). It is one image to assistive technology, named by its total, since bars read aloud
 * one by one say nothing useful.
 */

const BAR = 5;
const GAP = 1;
const HEIGHT = 22;

export function sparkline(counts: readonly number[], days = counts.length): SafeHtml {
  const total = counts.reduce((a, b) => a + b, 0);
  const max = Math.max(1, ...counts);
  const width = counts.length * (BAR + GAP) - GAP;
  const label = `${plural(total, 'occurrence')} in the last ${days} days`;
  return html`<svg
    class="sparkline"
    role="img"
    aria-label="${label}"
    width="${width}"
    height="${HEIGHT}"
    viewBox="0 0 ${width} ${HEIGHT}"
  >
    <title>${label}</title>
    ${counts.map((n, i) => {
      // A day with occurrences gets at least 3 px so a single one is visible next to a spike.
      const h = n === 0 ? 1 : Math.max(3, Math.round((n / max) * HEIGHT));
      return html`<rect
        class="${n === 0 ? 'none' : 'some'}"
        x="${i * (BAR + GAP)}"
        y="${HEIGHT - h}"
        width="${BAR}"
        height="${h}"
      />`;
    })}
  </svg>`;
}
