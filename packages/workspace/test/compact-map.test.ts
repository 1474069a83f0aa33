import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { buildMinifiedApp } from '@ferry/testing';
import { CompactMap } from '../src/errors/compact-map.js';

/**
 * CompactMap answers exactly as trace-mapping's originalPositionFor (default bias) on every
 * position of real esbuild bundles, and holds about as much memory as the map's JSON.
 */
describe('CompactMap', () => {
  it.each([0, 1])('matches trace-mapping on every position of build %i', async (variant) => {
    const app = await buildMinifiedApp(variant);
    const json = await readFile(join(app.dist, 'app.min.js.map'), 'utf8');
    const code = await readFile(join(app.dist, 'app.min.js'), 'utf8');
    const reference = new TraceMap(json);
    const compact = new CompactMap(json);
    const lines = code.split('\n');
    let compared = 0;
    lines.forEach((text, index) => {
      for (let column = 0; column <= text.length + 2; column++) {
        const expected = originalPositionFor(reference, { line: index + 1, column });
        const actual = compact.lookup(index + 1, column);
        expect(actual, `${index + 1}:${column}`).toEqual(
          expected.source === null
            ? null
            : {
                source: expected.source,
                line: expected.line,
                column: expected.column,
                name: expected.name,
              },
        );
        compared += 1;
      }
    });
    expect(compared).toBeGreaterThan(200);
    expect(compact.lookup(lines.length + 5, 0)).toBeNull();
    // The sources' text, for the code around a frame.
    const source = reference.resolvedSources.find((s) => s.endsWith('money.ts'))!;
    expect(compact.sourceLines(source)?.[3]).toContain('throw new TypeError');
    expect(compact.bytes).toBeLessThan(json.length * 4);
  });

  it('an indexed (sectioned) map is read as one', () => {
    const inner = {
      version: 3,
      sources: ['a.js'],
      names: ['f'],
      mappings: 'AAAAA',
      sourcesContent: ['function f() {}'],
    };
    const indexed = JSON.stringify({
      version: 3,
      sections: [{ offset: { line: 2, column: 0 }, map: inner }],
    });
    const compact = new CompactMap(indexed);
    expect(compact.lookup(3, 0)).toEqual({ source: 'a.js', line: 1, column: 0, name: 'f' });
    expect(compact.lookup(1, 0)).toBeNull();
  });
});
