import { html, type SafeHtml } from './html.js';

/**
 * The small formatting helpers every page uses: counts, plurals, times, values that may be
 * missing, untrusted links and query strings. One copy each, so "3 occurrences", "5 minutes ago"
 * and "not given" read the same on every page.
 */

/** `1,234`: thousands separated, the same on every page whatever the server's locale. */
export function number(n: number): string {
  return n.toLocaleString('en-US');
}

/** The word alone: `noun(1, 'room')` is "room", `noun(2, 'room')` "rooms". */
export function noun(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** "1 occurrence", "2 occurrences", "1,204 groups". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${number(n)} ${noun(n, one, many)}`;
}

/** `fry_AbCdEfGh…`: the start of a secret, enough to recognise it, never enough to use it. */
export function masked(prefix: string): string {
  return `${prefix}…`;
}

/** Grey text for what is absent or secondary ("not given", "never", "—"). */
export function muted(text: string): SafeHtml {
  return html`<span class="muted">${text}</span>`;
}

const UNITS: [number, string][] = [
  [60, 'second'],
  [60, 'minute'],
  [24, 'hour'],
  [30, 'day'],
  [12, 'month'],
  [Number.POSITIVE_INFINITY, 'year'],
];

/**
 * The relative amount and its unit, rounded to the nearest unit: a 7-day expiry a second after it
 * was made is "7 days", not "6 days", and 90 seconds is "2 minutes". The fraction is carried from
 * unit to unit and rounded once, at the unit it ends in.
 */
export function relativeAmount(seconds: number): { value: number; unit: string } {
  let value = Math.abs(seconds);
  for (const [size, unit] of UNITS) {
    if (Math.round(value) < size) return { value: Math.round(value), unit };
    value /= size;
  }
  return { value: Math.round(value), unit: 'year' };
}

/**
 * "3 minutes ago" (or "in 3 minutes" for a time still to come, such as a retry) with the exact
 * time on hover (`<time datetime title>`); public/room.js keeps the text fresh with the same units
 * and rounding.
 */
export function timeAgo(date: Date | string | null | undefined, now = Date.now()): SafeHtml {
  if (!date) return muted('never');
  const d = new Date(date);
  const seconds = Math.round((now - d.getTime()) / 1000);
  const { value, unit } = relativeAmount(seconds);
  const text =
    Math.abs(seconds) < 5
      ? 'just now'
      : seconds < 0
        ? `in ${plural(value, unit)}`
        : `${plural(value, unit)} ago`;
  return html`<time datetime="${d.toISOString()}" title="${d.toUTCString()}">${text}</time>`;
}

/** Relative and exact, for detail rows where the relative time alone would hide the order. */
export function exactTime(date: Date): SafeHtml {
  return html`${timeAgo(date)} <span class="muted small-text">(${date.toISOString()})</span>`;
}

type Shown = SafeHtml | string | number;

/**
 * A value that may be missing: rendered (as is, or through `render`) when present, otherwise a
 * muted placeholder ("not given" unless told). Empty strings count as missing.
 */
export function optional<T extends string | number>(
  value: T | null | undefined,
  render: (present: T) => Shown = (present) => present,
  placeholder = 'not given',
): Shown {
  return value === null || value === undefined || value === '' ? muted(placeholder) : render(value);
}

/** `optional` with a dash, for table cells. */
export function orDash<T extends string | number>(
  value: T | null | undefined,
  render?: (present: T) => Shown,
): Shown {
  return optional(value, render, '—');
}

export function code(value: string | number): SafeHtml {
  return html`<code>${value}</code>`;
}

export function mailto(email: string): SafeHtml {
  return html`<a href="mailto:${email}">${email}</a>`;
}

/** Only http(s) addresses become links: a reported URL is untrusted and could be `javascript:`. */
export function link(url: string | null | undefined): Shown {
  return optional(url, (present) =>
    /^https?:\/\//i.test(present)
      ? html`<a href="${present}" rel="noreferrer noopener" target="_blank">${present}</a>`
      : present,
  );
}

/** `path?a=1&b=2` with the given parameters in order; missing ones are left out. */
export function withQuery(
  path: string,
  params: Record<string, string | number | undefined> = {},
): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') query.set(key, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}
