import { ERROR_SOURCES, ERROR_STATUSES, isErrorSource, isErrorStatus } from '@ferry/db';
import type { ErrorSource, ErrorStatus } from '@ferry/db';

/**
 * The Errors search grammar (issue 43), one for the page's box and the API's `q=`: a pure parse
 * of the typed text into terms that search-sql.ts compiles. Terms are space-separated and all
 * must hold; `!` before a term negates it; `"double quotes"` keep spaces in a phrase or a value.
 *
 *   is:unresolved|resolved|ignored      assigned:me|none|<email>
 *   env: source: release: level: url:  (values with `*` globs; url: ignores case)
 *   <tag>:<value>                       any other key is a tag of the reports (globs too)
 *   first-seen: last-seen:              -24h, -7d (within the last …) or >/< an ISO 8601 date
 *   times-seen:                         >N, <N, =N (N alone means =N)
 *   anything else                       free text over class, message and culprit (any case)
 *
 * A malformed term is a SearchSyntaxError naming the token as typed, never a term that
 * quietly matches nothing.
 */

export const SEARCH_QUERY_MAX = 200;
export const ERROR_LEVELS = ['fatal', 'error', 'warning', 'info', 'debug'] as const;

/** Keys read from occurrences (any retained one matching makes its group match). */
export type OccurrenceField = 'release' | 'level' | 'url';

export type Comparison = '>' | '<' | '>=' | '<=' | '=';

interface TermBase {
  negated: boolean;
  /** The term as typed, for errors that name it. */
  token: string;
}

export type SearchTerm = TermBase &
  (
    | { kind: 'status'; status: ErrorStatus }
    | { kind: 'source'; source: ErrorSource }
    | {
        kind: 'assigned';
        assignee: 'me' | 'none' | { email: string };
        /** The seat `me` or the email names, filled in by checkedSearch (search-sql.ts). */
        memberId?: string;
      }
    /** Environment: a value, `*` globs (the group's environments). */
    | { kind: 'env'; value: string }
    | { kind: 'occurrence'; field: OccurrenceField; value: string }
    | { kind: 'tag'; key: string; value: string }
    | { kind: 'seen'; which: 'first' | 'last'; op: '>' | '<'; at: Date }
    | { kind: 'times-seen'; op: Comparison; count: number }
    | { kind: 'text'; text: string }
  );

export class SearchSyntaxError extends Error {
  constructor(
    readonly token: string,
    readonly why: string,
  ) {
    super(`“${token}”: ${why}`);
    this.name = 'SearchSyntaxError';
  }
}

const KEY = /^[A-Za-z][A-Za-z0-9_.-]*$/;
const RELATIVE = /^-(\d{1,6})([mhdw])$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const ISO_DATE =
  /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const COUNT = /^(>=|<=|>|<|=)?(\d{1,15})$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The raw tokens: runs of non-space, where a double-quoted part may hold spaces. */
function tokens(query: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < query.length) {
    if (/\s/.test(query[i]!)) {
      i++;
      continue;
    }
    const start = i;
    let quoted = false;
    while (i < query.length && (quoted || !/\s/.test(query[i]!))) {
      if (query[i] === '"') quoted = !quoted;
      i++;
    }
    const token = query.slice(start, i);
    if (quoted) throw new SearchSyntaxError(token, 'a quote is not closed; add the closing ".');
    out.push(token);
  }
  return out;
}

/** A value as typed: `"quoted"` loses its quotes; quotes inside a bare value are refused. */
function unquote(raw: string, token: string): string {
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) {
    const inner = raw.slice(1, -1);
    if (inner.includes('"')) throw new SearchSyntaxError(token, 'a value holds one quoted part.');
    return inner;
  }
  if (raw.includes('"')) {
    throw new SearchSyntaxError(token, 'quote the whole value, as in key:"two words".');
  }
  return raw;
}

function oneOf(values: readonly string[]): string {
  return `use one of ${values.join(', ')}.`;
}

function parseSeen(value: string, token: string, now: Date): { op: '>' | '<'; at: Date } {
  const relative = RELATIVE.exec(value);
  if (relative) {
    const ms = Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS];
    return { op: '>', at: new Date(now.getTime() - ms) };
  }
  const op = value[0];
  const date = value.slice(1);
  if ((op === '>' || op === '<') && ISO_DATE.test(date)) {
    // A time without a zone is UTC, as a date alone is: the same query means the same everywhere.
    const zoned = date.includes('T') && !/(Z|[+-]\d{2}:?\d{2})$/.test(date) ? `${date}Z` : date;
    const at = new Date(zoned);
    if (!Number.isNaN(at.getTime())) return { op, at };
  }
  throw new SearchSyntaxError(
    token,
    'use -24h, -7d (within the last …) or > or < an ISO date, as in >2026-11-01.',
  );
}

function parseKeyed(
  key: string,
  value: string,
  negated: boolean,
  token: string,
  now: Date,
): SearchTerm {
  const base = { negated, token };
  switch (key.toLowerCase()) {
    case 'is':
      if (!isErrorStatus(value)) throw new SearchSyntaxError(token, oneOf(ERROR_STATUSES));
      return { ...base, kind: 'status', status: value };
    case 'source':
      if (!isErrorSource(value)) throw new SearchSyntaxError(token, oneOf(ERROR_SOURCES));
      return { ...base, kind: 'source', source: value };
    case 'assigned':
      if (value === 'me' || value === 'none') return { ...base, kind: 'assigned', assignee: value };
      if (EMAIL.test(value)) return { ...base, kind: 'assigned', assignee: { email: value } };
      throw new SearchSyntaxError(token, 'use me, none or a member’s email.');
    case 'env':
    case 'environment':
      return { ...base, kind: 'env', value };
    case 'level':
      if (!value.includes('*') && !(ERROR_LEVELS as readonly string[]).includes(value)) {
        throw new SearchSyntaxError(token, oneOf(ERROR_LEVELS));
      }
      return { ...base, kind: 'occurrence', field: 'level', value };
    case 'release':
    case 'url':
      return { ...base, kind: 'occurrence', field: key.toLowerCase() as OccurrenceField, value };
    case 'first-seen':
    case 'last-seen':
      return {
        ...base,
        kind: 'seen',
        which: key.toLowerCase() === 'first-seen' ? 'first' : 'last',
        ...parseSeen(value, token, now),
      };
    case 'times-seen': {
      const count = COUNT.exec(value);
      if (!count) throw new SearchSyntaxError(token, 'use >N, <N or =N, as in times-seen:>10.');
      return {
        ...base,
        kind: 'times-seen',
        op: (count[1] ?? '=') as Comparison,
        count: Number(count[2]),
      };
    }
    default:
      return { ...base, kind: 'tag', key, value };
  }
}

/**
 * The terms of a query, in the order typed. `now` anchors relative times (-24h). Throws
 * SearchSyntaxError naming the first bad token.
 */
export function parseSearch(query: string, now: Date = new Date()): SearchTerm[] {
  if (query.length > SEARCH_QUERY_MAX) {
    throw new SearchSyntaxError(
      `${query.slice(0, 20)}…`,
      `a search is at most ${SEARCH_QUERY_MAX} characters.`,
    );
  }
  return tokens(query).map((token) => {
    const negated = token.startsWith('!');
    const body = negated ? token.slice(1) : token;
    if (!body) throw new SearchSyntaxError(token, 'put a term after the !, as in !env:staging.');
    const colon = body.indexOf(':');
    const key = colon > 0 ? body.slice(0, colon) : '';
    // `key:…` only when the key looks like one: "127.0.0.1:5432" and "http://…" are free text.
    if (KEY.test(key) && !body.startsWith('//', colon + 1)) {
      const value = unquote(body.slice(colon + 1), token);
      if (!value) throw new SearchSyntaxError(token, `${key}: needs a value after the colon.`);
      return parseKeyed(key, value, negated, token, now);
    }
    const text = unquote(body, token);
    if (!text) throw new SearchSyntaxError(token, 'an empty phrase matches nothing; remove it.');
    return { negated, token, kind: 'text', text };
  });
}

/**
 * The query with every term of these keys (negated or not) taken out and `replacement` put at
 * the end: what the status tabs, source tabs and environment menu link to. A query that does not
 * tokenize is kept as typed, so its error still shows after the click.
 */
export function withKeyReplaced(
  query: string,
  keys: readonly string[],
  replacement: string | undefined,
): string {
  let kept: string[];
  try {
    kept = tokens(query).filter((token) => {
      const body = token.startsWith('!') ? token.slice(1) : token;
      const colon = body.indexOf(':');
      return !(colon > 0 && keys.includes(body.slice(0, colon).toLowerCase()));
    });
  } catch {
    kept = [query.trim()];
  }
  return [...kept, ...(replacement ? [replacement] : [])].filter(Boolean).join(' ');
}

/** A value as a term's value: quoted when it holds a space (values never hold a quote). */
export function searchValue(value: string): string {
  return /\s/.test(value) ? `"${value.replace(/"/g, '')}"` : value.replace(/"/g, '');
}
