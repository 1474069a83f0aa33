import type { ListPage } from '@ferry/workspace';
import { number, withQuery } from './format.js';
import { html, type SafeHtml } from './html.js';

/**
 * The pager under a paged list, and the `page` query parameter it writes. Links keep the list's
 * other parameters (a status or source filter) and leave `page` out for the first page, so the
 * first page has one address.
 */

export interface PagerOptions {
  /** The list's path, without a query. */
  path: string;
  /** The list's other query parameters, kept on every link (in this order, before `page`). */
  query?: Record<string, string | number | undefined>;
  /** The page shown (may be past the last one, after a stale link). */
  page: number;
  /** At least 1. */
  pages: number;
  /** The query parameter of the page number, when a page has two paged lists; `page` otherwise. */
  param?: string;
  /** The links' words: "← Newer" / "Older →" suit lists by time; lists by name say Previous/Next. */
  labels?: { prev: string; next: string };
}

/** Query values on a page are forgiving: junk falls back to the first page instead of an error. */
export function pageParam(value: unknown): number {
  const n = typeof value === 'string' && /^\d{1,5}$/.test(value) ? Number(value) : 1;
  return n >= 1 ? n : 1;
}

/** The address of page `page` of the list. */
export function pageHref(
  options: Pick<PagerOptions, 'path' | 'query' | 'param'>,
  page: number,
): string {
  return withQuery(options.path, {
    ...options.query,
    [options.param ?? 'page']: page > 1 ? page : undefined,
  });
}

/**
 * Newer/older links around "Page N of M"; nothing when everything fits on page 1. Past the last
 * page (a stale link, `?page=99`) it never reads "Page 99 of 1": it says the page does not exist
 * and links to the last one.
 */
export function pager(options: PagerOptions): SafeHtml | '' {
  const { page, pages } = options;
  if (pages <= 1 && page <= 1) return '';
  if (page > Math.max(1, pages)) {
    const last = Math.max(1, pages);
    return html`<nav class="pager past-end" aria-label="Pages">
      <a href="${pageHref(options, last)}" rel="prev">← Last page (${number(last)})</a>
      <span class="muted">There is no page ${number(page)}</span>
      <span></span>
    </nav>`;
  }
  const labels = options.labels ?? { prev: 'Newer', next: 'Older' };
  // Past the end, "Newer" leads back to the last page that has rows.
  const prev = page > 1 ? Math.min(page - 1, pages) : undefined;
  const next = page < pages ? page + 1 : undefined;
  return html`<nav class="pager" aria-label="Pages">
    ${prev ? html`<a href="${pageHref(options, prev)}" rel="prev">← ${labels.prev}</a>` : html`<span></span>`}
    <span class="muted">Page ${number(page)} of ${number(pages)}</span>
    ${next ? html`<a href="${pageHref(options, next)}" rel="next">${labels.next} →</a>` : html`<span></span>`}
  </nav>`;
}

/**
 * What a list says past its last page (a stale link, a hand-edited `?page=`): that the page does
 * not exist, and a link to the last one that does.
 */
export function pastLastPage(options: PagerOptions): SafeHtml {
  const last = Math.max(1, options.pages);
  return html`Page ${number(options.page)} does not exist; the last page is ${number(last)}.
    <a href="${pageHref(options, last)}">Go to page ${number(last)}</a>`;
}

/**
 * Under a paged list of the workspace (rooms, members, invites, tokens, webhook keys and hooks,
 * workspaces): "Showing 1–50 of 1,234" and the pager; past the last page, what `pastLastPage`
 * says. Nothing when the list is empty (its empty state says so).
 */
export function listFooter(
  list: Pick<ListPage<unknown>, 'items' | 'total' | 'page' | 'pages' | 'first'>,
  options: Pick<PagerOptions, 'path' | 'query' | 'param'>,
): SafeHtml | '' {
  // Some of these lists are by name, some newest first: Previous/Next suits both.
  const at = {
    ...options,
    page: list.page,
    pages: list.pages,
    labels: { prev: 'Previous', next: 'Next' },
  };
  if (!list.items.length)
    return list.page > 1 ? html`<p class="list-count">${pastLastPage(at)}</p>` : '';
  const last = list.first + list.items.length - 1;
  return html`<p class="list-count muted">
      Showing ${number(list.first)}–${number(last)} of ${number(list.total)}
    </p>
    ${pager(at)}`;
}
