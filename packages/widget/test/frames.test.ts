import { describe, expect, it } from 'vitest';
import { frameLines } from '../browser/errors.js';

describe('the widget backtrace', () => {
  it('drops V8 header lines, so five errors from one line share their top frame (one group)', () => {
    const errors = Array.from({ length: 5 }, (_, i) => new Error(`x ${i}\nsecond line`));
    const tops = errors.map((error) => frameLines(error.stack!)[0]);
    expect(tops[0]).toMatch(/^\s*at .*frames\.test\.ts:\d+:\d+\)?$/);
    expect(new Set(tops).size).toBe(1);
  });

  it('keeps every line of a Gecko or WebKit stack (they have no header)', () => {
    expect(frameLines('render@https://x.test/w.js:1:2\n@https://x.test/:3:9\n')).toEqual([
      'render@https://x.test/w.js:1:2',
      '@https://x.test/:3:9',
    ]);
  });
});
