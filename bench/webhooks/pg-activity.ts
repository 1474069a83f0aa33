import { sql } from 'kysely';
import type { Db } from '@ferry/db';

/**
 * A poor man's Postgres profiler: every `everyMs`, which statements of this database are running
 * and what they wait on (pg_stat_activity). Counts per statement (first words) and per wait event
 * say where Postgres time goes: CPU-bound statements show no wait, commits waiting on the disk
 * show IO/WALSync or LWLock/WALWrite.
 */
export interface PgActivity {
  stop(): Promise<{ samples: number; statements: [string, number][]; waits: [string, number][] }>;
}

const shorten = (query: string): string =>
  query
    .replace(/\s+/g, ' ')
    .replace(/\$\d+(, \$\d+)*/g, '$…')
    .slice(0, 110);

export function samplePgActivity(db: Db, everyMs = 20): PgActivity {
  const statements = new Map<string, number>();
  const waits = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const rows = await sql<{ query: string; wait: string | null }>`
        select query, wait_event_type || ':' || wait_event as wait from pg_stat_activity
        where datname = current_database() and state = 'active' and pid <> pg_backend_pid()
          and backend_type = 'client backend'`.execute(db);
      samples++;
      for (const row of rows.rows) {
        const key = shorten(row.query);
        statements.set(key, (statements.get(key) ?? 0) + 1);
        const wait = row.wait ?? 'running (no wait)';
        waits.set(wait, (waits.get(wait) ?? 0) + 1);
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  const top = (map: Map<string, number>): [string, number][] =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, 8);
  return {
    stop: async () => {
      running = false;
      await loop;
      return { samples, statements: top(statements), waits: top(waits) };
    },
  };
}

/** Average active backends per statement / wait over the window, for printing. */
export function formatActivity(result: Awaited<ReturnType<PgActivity['stop']>>): string[] {
  const avg = (n: number): string => (n / Math.max(1, result.samples)).toFixed(2);
  return [
    `    Postgres active backends by wait (avg over ${result.samples} samples): ` +
      result.waits.map(([w, n]) => `${w} ${avg(n)}`).join(', '),
    ...result.statements.map(([q, n]) => `    ${avg(n)} active: ${q}`),
  ];
}
