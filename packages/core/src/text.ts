/**
 * String helpers for stored text (report fields, request bodies, webhook answers). Lengths are JS string lengths (UTF-16 code units), the
 * unit SPEC.md's "characters" is read in; a cut never leaves half of a surrogate pair behind.
 */

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** At most `max` code units of `value`, a prefix of it; one shorter when `max` would split a pair. */
export function truncate(value: string, max: number): string {
  if (value.length <= max) return value;
  let end = Math.max(0, max);
  if (end > 0 && isHigh(value.charCodeAt(end - 1)) && isLow(value.charCodeAt(end))) end -= 1;
  return value.slice(0, end);
}

// NUL, and a surrogate that is not part of a pair. Written without the `u` flag so the patterns
// see code units. SUSPECT is the cheap first look (no lookaround): most strings have neither.
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const SUSPECT = /[\u0000\ud800-\udfff]/;
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Replaces what Postgres refuses with U+FFFD: NUL (text and jsonb cannot hold it) and lone
 * surrogates (not encodable as UTF-8; jsonb rejects them). JSON.parse lets both through, and one
 * such report would fail its whole write batch. One code unit for one, so lengths do not change.
 */
export function storable(value: string): string {
  return SUSPECT.test(value) ? value.replace(UNSTORABLE, '\ufffd') : value;
}

/**
 * A parsed request body or query with every string (keys included) made storable, in place where
 * possible. Iterative, so a deeply nested body cannot overflow the stack. Objects are rebuilt with
 * their keys cleaned only when a key needs it; `__proto__` and friends stay plain own keys.
 */
export function storableDeep<T>(value: T): T {
  if (typeof value === 'string') return storable(value) as T;
  if (value === null || typeof value !== 'object') return value;
  const stack: object[] = [value];
  const seen = new Set<object>();
  while (stack.length) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        if (typeof item === 'string') node[i] = storable(item);
        else if (item !== null && typeof item === 'object') stack.push(item);
      }
      continue;
    }
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      let next = item;
      if (typeof item === 'string') next = storable(item);
      else if (item !== null && typeof item === 'object') stack.push(item);
      const cleanKey = storable(key);
      if (cleanKey !== key) {
        delete record[key];
        Object.defineProperty(record, cleanKey, {
          value: next,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else if (next !== item) {
        record[key] = next;
      }
    }
  }
  return value;
}
