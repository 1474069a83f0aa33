// Jest's order: longest files first, so the run does not end with one worker alone on a slow file.
// Jest's own sequencer knows durations only from its cache, which a fresh clone (CI) lacks: it then
// orders by file size, and a short file that posts 9,000 forms started last and ran alone at the
// end. infra/test-durations.json (written by `node infra/test.mjs --record-durations` after a full
// run) carries the durations with the repository; jest's cache fills in files newer than it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import jestSequencer from '@jest/test-sequencer';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const recorded = readDurations(path.join(root, 'infra', 'test-durations.json'));

function readDurations(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

// The package is CommonJS: its class is the default export's `default`.
const Sequencer = jestSequencer.default ?? jestSequencer;

export default class LongestFirst extends Sequencer {
  sort(tests) {
    const seconds = (test) => {
      const known = recorded[path.relative(root, test.path)];
      if (typeof known === 'number') return known;
      const cached = this._getCache(test)[test.path]?.[1];
      return typeof cached === 'number' ? cached / 1000 : undefined;
    };
    const timed = tests.map((test) => ({ test, seconds: seconds(test) }));
    // Files with no duration at all keep jest's own rule (by size) after the timed ones, except
    // that a timed file under a second goes after them: an unknown file is probably not tiny.
    const unknown = super.sort(timed.filter((t) => t.seconds === undefined).map((t) => t.test));
    const known = timed
      .filter((t) => t.seconds !== undefined)
      .sort((a, b) => b.seconds - a.seconds);
    const long = known.filter((t) => t.seconds >= 1).map((t) => t.test);
    const short = known.filter((t) => t.seconds < 1).map((t) => t.test);
    return [...long, ...unknown, ...short];
  }
}
