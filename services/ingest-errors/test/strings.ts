import fc from 'fast-check';

/** True when every surrogate in `value` is half of a pair (what Node's isWellFormed checks). */
export function isWellFormed(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i += 1;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      return false;
    }
  }
  return true;
}

const loneSurrogate = fc
  .integer({ min: 0xd800, max: 0xdfff })
  .map((unit) => String.fromCharCode(unit));
const codePoint = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 });
/** Astral characters (two code units) often, so cuts land inside pairs. */
const astral = fc.integer({ min: 0x10000, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp));

/** Valid UTF-16 strings, astral-heavy, lengths around `cap` as often as well below it. */
export function wellFormedString(cap: number): fc.Arbitrary<string> {
  const unit = fc.oneof(codePoint, astral, fc.constant('a'));
  return fc.oneof(
    fc.string({ unit, maxLength: Math.min(cap, 20) }),
    fc.string({ unit, minLength: Math.max(0, cap - 4), maxLength: cap + 4 }),
  );
}

/** Any JS string, lone surrogates and NUL included (JSON.parse can produce both). */
export function anyString(cap: number): fc.Arbitrary<string> {
  const unit = fc.oneof(codePoint, astral, loneSurrogate, fc.constant('\u0000'));
  return fc.oneof(
    fc.string({ unit, maxLength: Math.min(cap, 20) }),
    fc.string({ unit, minLength: Math.max(0, cap - 4), maxLength: cap + 4 }),
  );
}
