import { describe, expect, it } from 'vitest';
import { firstIdAt, idTime, isId, newId } from '../src/ids.js';

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

  it('strictly increases within one millisecond, by an unpredictable step', () => {
    const ids = Array.from({ length: 5_000 }, () => newId('message'));
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    // Many fall in one millisecond: they share its clock part and step forward.
    const byMs = new Map<string, string[]>();
    for (const id of ids) byMs.set(id.slice(4, 14), [...(byMs.get(id.slice(4, 14)) ?? []), id]);
    const busiest = [...byMs.values()].sort((a, b) => b.length - a.length)[0]!;
    expect(busiest.length).toBeGreaterThan(10);
    const steps = busiest
      .slice(1)
      .map((id, i) => decode(id.slice(14)) - decode(busiest[i]!.slice(14)));
    expect(steps.every((step) => step >= 1n && step <= 2n ** 32n)).toBe(true);
    expect(new Set(steps).size).toBe(steps.length);
  });

  it("spreads each millisecond's first random part over the whole alphabet, in every position", async () => {
    const firsts: string[] = [];
    let lastMs = '';
    while (firsts.length < 600) {
      const id = newId('outbox');
      if (id.slice(4, 14) !== lastMs) {
        lastMs = id.slice(4, 14);
        firsts.push(id.slice(-16));
      } else {
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    for (let position = 0; position < 16; position++) {
      const seen = new Set(firsts.map((id) => id[position]));
      expect(seen.size).toBe(32);
    }
  });
});

describe('idTime', () => {
  it('reads back the millisecond an id was made, and nothing from a non-id', () => {
    const before = Date.now();
    const id = newId('message');
    const made = idTime(id)!.getTime();
    expect(made).toBeGreaterThanOrEqual(before);
    expect(made).toBeLessThanOrEqual(Date.now());
    const at = new Date('2026-12-06T20:00:00.123Z');
    expect(idTime(firstIdAt('errorOccurrence', at))).toEqual(at);
    expect(idTime('msg_junk')).toBeUndefined();
  });
});
