import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');

function viewFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return viewFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('class names in the views', () => {
  // `.small` is a button size (app.css: its padding sits the label inside the button's border);
  // on text it indented the line past its neighbours: the help text under "Fix with agent", a
  // member's note, the "(ISO time)" after a relative time (#42, defect 11). Text uses .small-text.
  it('puts the button size .small only on buttons and button links', () => {
    const misuses: string[] = [];
    for (const file of viewFiles(src)) {
      const text = fs.readFileSync(file, 'utf8');
      for (const match of text.matchAll(/<([a-z][a-z0-9]*)\b[^<>]*?class="([^"]*)"/g)) {
        const [tag, classes] = [match[1] ?? '', (match[2] ?? '').split(/\s+/)];
        if (!classes.includes('small')) continue;
        if (tag === 'button' || classes.includes('button')) continue;
        misuses.push(`${path.relative(src, file)}: <${tag} class="${match[2]}">`);
      }
    }
    expect(misuses).toEqual([]);
  });
});
