/**
 * The one scrubber (DESIGN.md, fourth wave; issue 41): what an error report carries is cleaned of
 * secrets before anything is queued, so Redis, Postgres, the pages, the API, alerts, deliveries
 * and agent tickets only ever see `[Filtered]` where a secret was. Sentry's rules, as its users
 * know them (docs.sentry.io/security-legal-pii/scrubbing/server-side-scrubbing/):
 * - a value under a key that contains one of the sensitive words (case-insensitive substring:
 *   `Authorization` holds "auth", `X-Session-Id` holds "session") is replaced whole;
 * - anywhere in a string: runs of 13 to 19 digits that pass the Luhn check (card numbers, with or
 *   without spaces or dashes), bearer tokens, and sensitive keys' values in a URL's query string;
 * - a key named in `safeFields` is not judged by its name (Sentry's safe fields), except the
 *   credential headers (ALWAYS_FILTERED_KEYS); card numbers and bearer tokens inside its value are
 *   still filtered, so what the Error reporting page calls "always filtered" is;
 * - unless `keepIp`, the user's IP address: `ip_address` (Sentry's user field, and the same key in
 *   any context) and the request headers proxies put the client's address in.
 *
 * Written once for the server and the widget (issue 45: the widget scrubs evidence before it
 * leaves the page, with the default rules): this module imports nothing and is its own entry,
 * `@ferry/core/scrub`, so the browser bundle takes it without the rest of core (node-only).
 */

export const FILTERED = '[Filtered]';

/** Sentry's default sensitive words, with `cookie` for the Cookie and Set-Cookie headers. */
export const DEFAULT_SENSITIVE_KEYS: readonly string[] = [
  'password',
  'passwd',
  'secret',
  'api_key',
  'apikey',
  'auth',
  'credentials',
  'mysql_pwd',
  'privatekey',
  'private_key',
  'token',
  'session',
  'ssn',
  'cookie',
];

/**
 * Where the user's IP address travels, as whole lower-case key names (not words: `forwarded`
 * inside another name is not an address): Sentry's `user.ip_address` and its `REMOTE_ADDR`, and
 * the headers a proxy or CDN sets to the client's address.
 */
export const IP_KEYS: readonly string[] = [
  'ip_address',
  'remote_addr',
  'x-forwarded-for',
  'x-real-ip',
  'forwarded',
  'x-client-ip',
  'cf-connecting-ip',
  'true-client-ip',
];
const IP_KEY_SET: ReadonlySet<string> = new Set(IP_KEYS);

/**
 * Credential headers, filtered even when named a safe field: a safe field is for a name that only
 * looks sensitive, and these never are anything else.
 */
export const ALWAYS_FILTERED_KEYS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
];
const ALWAYS_FILTERED_SET: ReadonlySet<string> = new Set(ALWAYS_FILTERED_KEYS);

export interface ScrubRules {
  /** Lower-case words: a key containing any of them is sensitive. */
  keys: readonly string[];
  /** Lower-case key names kept as sent. */
  safeFields: ReadonlySet<string>;
  /** Keep the user's IP address (IP_KEYS); when false, their values read `[Filtered]`. */
  keepIp: boolean;
}

/**
 * The default rules, plus a workspace's own sensitive words and safe fields. The IP address is
 * filtered unless asked for: an IP is personal data (GDPR), and a report is as useful without it,
 * so keeping it is the choice a workspace makes on purpose.
 */
export function scrubRules(
  extra: { keys?: readonly string[]; safeFields?: readonly string[]; keepIp?: boolean } = {},
): ScrubRules {
  const lower = (words: readonly string[] = []) =>
    words.map((word) => word.trim().toLowerCase()).filter(Boolean);
  return {
    keys: [...DEFAULT_SENSITIVE_KEYS, ...lower(extra.keys)],
    safeFields: new Set(lower(extra.safeFields)),
    keepIp: extra.keepIp ?? false,
  };
}

export const DEFAULT_SCRUB_RULES = scrubRules();

/** Whether a value under this key is replaced whole. */
export function isSensitiveKey(key: string, rules: ScrubRules = DEFAULT_SCRUB_RULES): boolean {
  const lower = key.toLowerCase();
  if (ALWAYS_FILTERED_SET.has(lower)) return true;
  if (rules.safeFields.has(lower)) return false;
  if (!rules.keepIp && IP_KEY_SET.has(lower)) return true;
  return rules.keys.some((word) => lower.includes(word));
}

/** The Luhn check over a run of digits (card numbers pass it; most other numbers do not). */
function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** A whole number of 13 to 19 digits that passes the Luhn check (a card number sent as JSON). */
function looksLikeCard(value: number): boolean {
  if (!Number.isSafeInteger(value) || value < 1e12) return false;
  return luhnValid(String(value));
}

/** 13 to 19 digits, single spaces or dashes allowed between them, not inside a longer number. */
const CARD_RUN = /(?<![\d])\d(?:[ -]?\d){12,18}(?![\d])/g;
const BEARER = /\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi;
/** A query-string pair: `?key=value` or `&key=value`. */
const QUERY_PAIR = /([?&;])([^=&?#\s;]+)=([^&#\s;]*)/g;

/** A string with card numbers, bearer tokens and sensitive query values replaced. */
export function scrubText(text: string, rules: ScrubRules = DEFAULT_SCRUB_RULES): string {
  let out = text.replace(CARD_RUN, (run) => {
    const digits = run.replace(/[ -]/g, '');
    return digits.length >= 13 && digits.length <= 19 && luhnValid(digits) ? FILTERED : run;
  });
  out = out.replace(BEARER, (_match, word: string) => `${word} ${FILTERED}`);
  if (out.includes('=')) {
    out = out.replace(QUERY_PAIR, (pair, lead: string, key: string) => {
      let name = key;
      try {
        name = decodeURIComponent(key);
      } catch {
        // A malformed escape: judge the key as written.
      }
      return isSensitiveKey(name, rules) ? `${lead}${key}=${FILTERED}` : pair;
    });
  }
  return out;
}

/**
 * Any JSON value with the rules applied: objects by key (a sensitive key's value is replaced
 * whole, whatever it holds), `[name, value]` pairs (Sentry's header lists) by their name, strings
 * by scrubText. Returns a new value; the given one is not changed.
 */
export function scrubValue(value: unknown, rules: ScrubRules = DEFAULT_SCRUB_RULES): unknown {
  if (typeof value === 'string') return scrubText(value, rules);
  if (typeof value === 'number') return looksLikeCard(value) ? FILTERED : value;
  if (Array.isArray(value)) {
    if (value.length === 2 && typeof value[0] === 'string' && isSensitiveKey(value[0], rules)) {
      return [value[0], FILTERED];
    }
    return value.map((item) => scrubValue(item, rules));
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] = isSensitiveKey(key, rules) ? FILTERED : scrubValue(inner, rules);
    }
    return out;
  }
  return value;
}

const QUERY_VALUE = /([?&;#][^=&#?;]*=)[^&#;]*/g;

/**
 * Every query value masked, and `key=value` pairs in the fragment (OAuth's implicit flow puts
 * `#access_token=` there): a request in a timeline (issue 45) is read by its path and keys.
 */
export function maskQuery(url: string): string {
  return url.replace(QUERY_VALUE, '$1*');
}
