import { describe, expect, it } from 'vitest';
import { statementFor } from '../src/jobs/insert-occurrences.js';

/** The writer's occurrences INSERT text (insert-occurrences.ts): 18 values a row. */
describe('the occurrences INSERT text', () => {
  it('numbers each row’s 18 parameters after the row before it, and returns the inserted ids', () => {
    const text = statementFor(2);
    expect(text).toMatch(/^insert into "error_occurrences" \("id", "workspace_id", /);
    expect(text).toContain(
      '($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18), ($19, ',
    );
    expect(text).toContain('$36)');
    expect(text).not.toContain('$37');
    expect(text.endsWith(' on conflict ("id") do nothing returning "id"')).toBe(true);
  });

  it('gives the same text for a size built before and after its cache was emptied', () => {
    const first = statementFor(1_000);
    // 1,000-row texts are 135,000 characters: thirty sizes near it pass the cache's bound.
    for (let rows = 970; rows < 1_000; rows += 1) {
      expect(statementFor(rows).match(/\(\$/g)).toHaveLength(rows);
    }
    expect(statementFor(1_000)).toBe(first);
    expect(first.match(/\$\d+/g)).toHaveLength(18_000);
  });
});
