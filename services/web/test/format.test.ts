import { describe, expect, it } from 'vitest';
import { relativeAmount, timeAgo } from '../src/shared/format.js';

describe('relative times (#28)', () => {
  it('round to the nearest unit, not down', () => {
    const day = 86_400;
    expect(relativeAmount(7 * day - 1)).toEqual({ value: 7, unit: 'day' });
    expect(relativeAmount(-(7 * day - 1))).toEqual({ value: 7, unit: 'day' });
    expect(relativeAmount(90)).toEqual({ value: 2, unit: 'minute' });
    expect(relativeAmount(89)).toEqual({ value: 1, unit: 'minute' });
    expect(relativeAmount(59.6)).toEqual({ value: 1, unit: 'minute' });
    expect(relativeAmount(23.6 * 3600)).toEqual({ value: 1, unit: 'day' });
    expect(relativeAmount(45)).toEqual({ value: 45, unit: 'second' });
    expect(relativeAmount(400 * day)).toEqual({ value: 1, unit: 'year' });
  });

  it('reads "in 7 days" for a 7-day expiry made a second ago', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    const expires = new Date(now - 1000 + 7 * 86_400_000);
    expect(String(timeAgo(expires, now))).toContain('>in 7 days</time>');
    expect(String(timeAgo(new Date(now - 3 * 3600_000 - 40 * 60_000), now))).toContain(
      '>4 hours ago</time>',
    );
  });
});
