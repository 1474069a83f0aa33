/**
 * The error reports' scrubbing rules (@ferry/core scrub.ts, issue 41), as the widget applies them
 * to evidence before it leaves the page (issue 45): a value under a sensitive key is replaced
 * whole; card numbers (Luhn), bearer tokens and sensitive query values inside any text. A copy,
 * kept small for the bundle: the server scrubs again with the full rules and the workspace's own
 * keys, so this one only has to be no weaker than the defaults. Keep the lists in step with core.
 */
export const FILTERED = '[Filtered]';

const SENSITIVE = [
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
  'ip_address',
  'x-forwarded-for',
  'x-real-ip',
];

export function isSensitiveKey(key: string): boolean {
  const lower = key.toLowerCase();
  for (const word of SENSITIVE) if (lower.indexOf(word) >= 0) return true;
  return false;
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const CARD_RUN = /(?<![\d])\d(?:[ -]?\d){12,18}(?![\d])/g;
const BEARER = /\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi;
const QUERY_PAIR = /([?&;])([^=&?#\s;]+)=([^&#\s;]*)/g;

export function scrubText(text: string): string {
  let out = text.replace(CARD_RUN, (run) => {
    const digits = run.replace(/[ -]/g, '');
    return digits.length >= 13 && digits.length <= 19 && luhn(digits) ? FILTERED : run;
  });
  out = out.replace(BEARER, (_m, word: string) => `${word} ${FILTERED}`);
  if (out.indexOf('=') >= 0) {
    out = out.replace(QUERY_PAIR, (pair, lead: string, key: string) => {
      let name = key;
      try {
        name = decodeURIComponent(key);
      } catch {
        // A malformed escape: judge the key as written.
      }
      return isSensitiveKey(name) ? `${lead}${key}=${FILTERED}` : pair;
    });
  }
  return out;
}

const QUERY_VALUE = /([?&;#][^=&#?;]*=)[^&#;]*/g;

/**
 * Every query value masked, and `key=value` pairs in the fragment too (OAuth's implicit flow puts
 * `#access_token=` there): a request's address is told by its path and keys.
 */
export function maskQuery(url: string): string {
  return url.replace(QUERY_VALUE, '$1*');
}
