import { number, withQuery } from './format.js';
import { html, type SafeHtml } from './html.js';

/** One entry of a tab strip: a link, with an optional count badge. */
export interface Tab {
  href: string;
  label: string;
  count?: number | undefined;
  current: boolean;
}

/**
 * A strip of tabs (filters or sections of one page) as links; the current one carries
 * `aria-current="page"`. `label` names the strip for assistive technology ("Filter by status").
 */
export function tabs(label: string, entries: readonly Tab[]): SafeHtml {
  return html`<nav class="tabs" aria-label="${label}">
    ${entries.map(
      (t) =>
        html`<a href="${t.href}" ${t.current ? html`aria-current="page"` : ''}
          >${t.label}${t.count === undefined ? '' : html` <span class="count">${number(t.count)}</span>`}</a
        >`,
    )}
  </nav>`;
}

/**
 * Tabs that filter a list by one query parameter (`?status=new`); an entry without a value
 * ("All") links to the bare path. Paging restarts on the first page of each tab.
 */
export function filterTabs<V extends string>(
  label: string,
  options: {
    path: string;
    param: string;
    current: V | undefined;
    entries: readonly { value: V | undefined; label: string; count?: number }[];
  },
): SafeHtml {
  return tabs(
    label,
    options.entries.map((e) => ({
      href: withQuery(options.path, { [options.param]: e.value }),
      label: e.label,
      count: e.count,
      current: e.value === options.current,
    })),
  );
}
