import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The Postgres server the suite runs on (vitest's global setup finds it). */
export function serverUrl(): string {
  return process.env.FERRY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

function withDatabase(name: string): string {
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** A name for a database nobody has made yet (the runner creates it); drop it with `drop`. */
export function scratchDatabase(): { url: string; drop: () => Promise<void> } {
  const name = `ferry_t_migrator_${randomBytes(6).toString('hex')}`;
  return {
    url: withDatabase(name),
    drop: async () => {
      const admin = new pg.Client({ connectionString: withDatabase('postgres') });
      await admin.connect();
      try {
        await admin.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await admin.end();
      }
    },
  };
}
