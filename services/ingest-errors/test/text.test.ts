import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { storable, truncate } from '@ferry/core';
import { anyString, isWellFormed, wellFormedString } from './strings.js';

describe('truncate', () => {
  it('keeps a prefix of at most max code units, one less only to keep a pair whole', () => {
    fc.assert(
      fc.property(anyString(60), fc.integer({ min: 0, max: 64 }), (value, max) => {
        const cut = truncate(value, max);
        expect(value.startsWith(cut)).toBe(true);
        expect(cut.length).toBeLessThanOrEqual(max);
        if (value.length <= max) expect(cut).toBe(value);
        else expect(cut.length).toBeGreaterThanOrEqual(max - 1);
      }),
    );
  });

  it('never leaves a lone surrogate in a well-formed string', () => {
    fc.assert(
      fc.property(wellFormedString(40), fc.integer({ min: 0, max: 44 }), (value, max) => {
        expect(isWellFormed(truncate(value, max))).toBe(true);
      }),
    );
  });

  it('steps back over a pair the cap would split', () => {
    expect(truncate('ab😀c', 3)).toBe('ab');
    expect(truncate('ab😀c', 4)).toBe('ab😀');
    expect(truncate('😀', 1)).toBe('');
  });
});

describe('storable', () => {
  it('replaces NUL and lone surrogates one for one and leaves everything else alone', () => {
    fc.assert(
      fc.property(anyString(40), (value) => {
        const out = storable(value);
        expect(out).toHaveLength(value.length);
        expect(isWellFormed(out)).toBe(true);
        expect(out).not.toContain('\u0000');
      }),
    );
    fc.assert(
      fc.property(wellFormedString(40), (value) => {
        fc.pre(!value.includes('\u0000'));
        expect(storable(value)).toBe(value);
      }),
    );
    expect(storable('a\u0000b\ud800c\udc00😀')).toBe('a\ufffdb\ufffdc\ufffd😀');
  });
});
