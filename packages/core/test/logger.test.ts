import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, prettyByDefault, prettyLines } from '../src/logger.js';
import { loadConfig } from '../src/config.js';

/** A destination that keeps what is written. */
function memory(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

const ROOT = path.resolve(new URL('.', import.meta.url).pathname, '../../..');

describe('log lines (#28: readable at a terminal, JSON otherwise)', () => {
  it('are pretty only at a terminal outside production and tests', () => {
    expect(prettyByDefault({ NODE_ENV: 'development' }, { isTTY: true })).toBe(true);
    expect(prettyByDefault({}, { isTTY: true })).toBe(true);
    expect(prettyByDefault({ NODE_ENV: 'development' }, { isTTY: false })).toBe(false);
    expect(prettyByDefault({ NODE_ENV: 'development' }, {})).toBe(false);
    expect(prettyByDefault({ NODE_ENV: 'production' }, { isTTY: true })).toBe(false);
    expect(prettyByDefault({ NODE_ENV: 'test' }, { isTTY: true })).toBe(false);
  });

  it('LOG_FORMAT=json keeps JSON at a terminal, pretty forces readable lines (issue 42)', () => {
    const tty = { isTTY: true };
    expect(prettyLines('auto', { NODE_ENV: 'development' }, tty)).toBe(true);
    expect(prettyLines('json', { NODE_ENV: 'development' }, tty)).toBe(false);
    expect(prettyLines('pretty', { NODE_ENV: 'production' }, { isTTY: false })).toBe(true);
    expect(loadConfig({}).LOG_FORMAT).toBe('auto');
    expect(loadConfig({ LOG_FORMAT: 'json' }).LOG_FORMAT).toBe('json');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });

  it('pretty: one line an entry, its fields on it, secrets redacted as in JSON', () => {
    const out = memory();
    const logger = createLogger({
      level: 'info',
      name: 'ferry',
      pretty: true,
      destination: out.stream,
    });
    logger.info({ password: 'hunter2-secret', port: 3000 }, 'listening');
    const text = out.text();
    expect(text).toMatch(/INFO.*\(ferry\).*listening/);
    expect(text).not.toMatch(/^\{/);
    expect(text).not.toContain('hunter2-secret');
    expect(text).toContain('[redacted]');
    expect(text.trim().split('\n')).toHaveLength(1);
  });

  it('JSON otherwise', () => {
    const out = memory();
    const logger = createLogger({ level: 'info', pretty: false, destination: out.stream });
    logger.info('listening');
    expect(JSON.parse(out.text())).toMatchObject({ level: 30, msg: 'listening' });
  });

  it('a real terminal gets readable lines, a pipe gets JSON (the default, no option given)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-logger-'));
    const file = path.join(dir, 'up.ts');
    const logger = path.join(ROOT, 'packages/core/src/logger.ts');
    writeFileSync(
      file,
      `import { createLogger } from '${logger}';\ncreateLogger({ level: 'info', name: 'ferry' }).info('Ferry is up');\n`,
    );
    const env = { ...process.env, NODE_ENV: 'development' };
    try {
      const piped = spawnSync('node', ['--import', 'tsx', file], {
        cwd: ROOT,
        env,
        encoding: 'utf8',
      });
      expect(JSON.parse(piped.stdout.trim())).toMatchObject({ msg: 'Ferry is up', name: 'ferry' });
      // util-linux `script` runs the command on a pseudo-terminal, as a person's shell would.
      if (!existsSync('/usr/bin/script')) throw new Error('this test needs util-linux script(1)');
      const tty = spawnSync('/usr/bin/script', ['-qec', `node --import tsx ${file}`, '/dev/null'], {
        cwd: ROOT,
        env,
        encoding: 'utf8',
      });
      expect(tty.stdout).toMatch(/INFO.*Ferry is up/);
      expect(tty.stdout).not.toContain('"msg"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
