import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serverUrl } from './scratch-database.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const check = fileURLToPath(new URL('../../../infra/check-migrations.mjs', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** `pnpm check:migrations` over a fixture's migration list: its exit code and what it printed. */
function runCheck(migrations: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [check, '--migrations', fixture(migrations)],
      { cwd: repoRoot, env: { ...process.env, DATABASE_URL: serverUrl(), NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

/**
 * The migration check (infra/check-migrations.mjs) end to end: fixture migrations applied to a
 * scratch database by the real runner, their SQL captured and linted by the real squawk binary.
 */
describe('pnpm check:migrations', () => {
  it('refuses a plain CREATE INDEX on an existing table and passes the concurrent form', async () => {
    const [plain, concurrent] = await Promise.all([
      runCheck('plain-index-migrations.ts'),
      runCheck('concurrent-index-migrations.ts'),
    ]);

    expect(plain.code, plain.output).toBe(1);
    expect(plain.output).toContain('require-concurrent-index-creation');
    expect(plain.output).toContain('2030_01_01_0002_widgets_by_name.sql');
    expect(plain.output).toContain('create index widgets_name_idx on widgets (name)');
    // The table's own creation, in the migration before, is not what squawk refused.
    expect(plain.output).not.toContain('2030_01_01_0001_widgets.sql');

    expect(concurrent.code, concurrent.output).toBe(0);
    expect(concurrent.output).toContain('the SQL of 2 migrations passes squawk');
  });

  it('fails, naming the migration, when a concurrent index is left inside a transaction', async () => {
    const result = await runCheck('concurrent-index-in-transaction-migrations.ts');
    expect(result.code, result.output).toBe(1);
    expect(result.output).toContain(
      'Migration 2030_01_01_0002_widgets_by_name failed: CREATE INDEX CONCURRENTLY cannot run inside a transaction block',
    );
  });
});
