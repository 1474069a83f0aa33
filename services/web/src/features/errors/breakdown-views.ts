import type { TagBreakdown } from '@ferry/workspace';
import { number, plural } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { countBars } from '../../shared/sparkline.js';

/**
 * The group page's "When and where" card (issue 41): occurrences over the last 24 hours and 14
 * days, and each tag's top values with their share of the group's retained occurrences. Shares are
 * drawn with `<meter>` (the CSP allows no inline style), their percentages written beside.
 */

export interface GroupBreakdown {
  /** Per hour, oldest first. */
  hours: readonly number[];
  /** Per UTC day, oldest first. */
  days: readonly number[];
  total: number;
  tags: readonly TagBreakdown[];
}

const percent = (share: number): string =>
  share >= 0.995 ? '100%' : share < 0.01 ? '<1%' : `${Math.round(share * 100)}%`;

function tagTable(tag: TagBreakdown): SafeHtml {
  return html`<div class="tag-breakdown">
    <h4>${tag.key}</h4>
    <table class="tag-values">
      <tbody>
        ${tag.values.map(
          (v) =>
            html`<tr>
              <td class="break tag-value">${v.value}</td>
              <td class="tag-share">
                <meter
                  min="0"
                  max="1"
                  value="${v.share.toFixed(4)}"
                  title="${number(v.count)}"
                ></meter>
              </td>
              <td class="tag-percent">${percent(v.share)}</td>
            </tr>`,
        )}
        ${
          tag.others
            ? html`<tr class="muted">
                <td>Other values</td>
                <td></td>
                <td class="tag-percent">${number(tag.others)}</td>
              </tr>`
            : ''
        }
      </tbody>
    </table>
  </div>`;
}

export function breakdownSection(data: GroupBreakdown): SafeHtml {
  const sum = (counts: readonly number[]) => counts.reduce((a, b) => a + b, 0);
  return html`<section class="card group-breakdown" aria-label="When and where">
    <div class="charts">
      <figure>
        <figcaption>
          Last 24 hours <span class="muted">(${number(sum(data.hours))})</span>
        </figcaption>
        ${countBars(
          data.hours,
          `${plural(sum(data.hours), 'occurrence')} in the last 24 hours, by hour`,
          {
            bar: 10,
            height: 48,
            className: 'sparkline chart',
          },
        )}
      </figure>
      <figure>
        <figcaption>Last 14 days <span class="muted">(${number(sum(data.days))})</span></figcaption>
        ${countBars(
          data.days,
          `${plural(sum(data.days), 'occurrence')} in the last 14 days, by day`,
          {
            bar: 17,
            height: 48,
            className: 'sparkline chart',
          },
        )}
      </figure>
    </div>
    ${
      data.tags.length
        ? html`<h3>
              Tags
              <span class="muted small-text"
                >over ${plural(data.total, 'retained occurrence')}</span
              >
            </h3>
            <div class="tag-grid">${data.tags.map(tagTable)}</div>`
        : ''
    }
  </section>`;
}
