import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '@ferry/testing';
import { parseSeedArgs, SEED_COUNT_MAX } from '../src/cli/seed-args.js';
import type { SeedResult } from '../src/seed.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

describe('seed CLI arguments', () => {
  it('defaults to one workspace and reads --json, --outgoing-url and --count', () => {
    expect(parseSeedArgs([])).toEqual({ json: false, outgoingUrl: undefined, count: 1 });
    expect(
      parseSeedArgs(['--json', '--count', '3', '--outgoing-url', 'http://127.0.0.1:9/hook']),
    ).toEqual({ json: true, outgoingUrl: 'http://127.0.0.1:9/hook', count: 3 });
  });

  it('names the problem with a bad --count or --outgoing-url', () => {
    for (const bad of [['--count'], ['--count', '0'], ['--count', 'x'], ['--count', '2.5']]) {
      expect(parseSeedArgs(bad).problem).toBe(
        `--count needs a whole number from 1 to ${SEED_COUNT_MAX}`,
      );
    }
    expect(parseSeedArgs(['--count', String(SEED_COUNT_MAX + 1)]).problem).toMatch(/--count/);
    expect(parseSeedArgs(['--outgoing-url', 'ftp://x']).problem).toMatch(/--outgoing-url/);
  });
});

describe('pnpm seed --count N --json', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('prints one JSON object a line, one distinct usable workspace each', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'services/web/src/cli/seed.ts', '--json', '--count', '2'],
      { cwd: ROOT, env: { ...process.env, ...ctx.env, PUBLIC_URL: 'http://127.0.0.1:3999' } },
    );
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const seeded = lines.map((line) => JSON.parse(line) as SeedResult);
    expect(seeded[0]!.workspace.id).not.toBe(seeded[1]!.workspace.id);
    expect(seeded[1]!.incoming_webhook.url).toBe(
      `http://127.0.0.1:3999/wh/in/${seeded[1]!.incoming_webhook.key}`,
    );
    const workspaces = await ctx.db
      .selectFrom('workspaces')
      .select(['id', 'public_key'])
      .where(
        'id',
        'in',
        seeded.map((s) => s.workspace.id),
      )
      .execute();
    expect(workspaces.map((w) => w.public_key).sort()).toEqual(
      seeded.map((s) => s.workspace.public_key).sort(),
    );
  });

  it('exits 2 with the problem on stderr for a bad --count, before touching the database', async () => {
    const failed = await run(
      process.execPath,
      ['--import', 'tsx', 'services/web/src/cli/seed.ts', '--count', 'many'],
      { cwd: ROOT, env: { ...process.env, ...ctx.env } },
    ).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 2, stderr: expect.stringContaining('--count') as string });
  });
});
