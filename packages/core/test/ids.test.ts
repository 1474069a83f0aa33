import { describe, expect, it } from '@jest/globals';
import { isId, newId } from '../src/ids.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const decode = (text: string): bigint =>
  [...text].reduce((value, char) => value * 32n + BigInt(ALPHABET.indexOf(char)), 0n);

describe('newId', () => {
  it('is <prefix>_<10 chars of the ms clock><16 chars of randomness>', () => {
    const before = Date.now();
    const id = newId('message');
    const after = Date.now();
    expect(isId(id, 'message')).toBe(true);
    expect(id).toMatch(/^msg_[0-9a-hjkmnp-tv-z]{26}$/);
    const ms = Number(decode(id.slice(4, 14)));
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
  });

  it('sorts by creation time and never repeats across pool refills', async () => {
    const first = Array.from({ length: 2_000 }, () => newId('errorOccurrence'));
    await new Promise((resolve) => setTimeout(resolve, 2));
    const later = newId('errorOccurrence');
    expect(new Set(first).size).toBe(first.length);
    expect(first.every((id) => id.slice(0, 14) <= later.slice(0, 14))).toBe(true);
    expect(later > first[first.length - 1]!).toBe(true);
  });

  it('spreads its random part over the whole alphabet, in every position', () => {
    const ids = Array.from({ length: 4_000 }, () => newId('outbox').slice(-16));
    for (let position = 0; position < 16; position++) {
      const seen = new Set(ids.map((id) => id[position]));
      expect(seen.size).toBe(32);
    }
  });
});
