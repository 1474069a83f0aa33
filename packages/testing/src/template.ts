import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrateToLatest, migrations } from '@ferry/db';

/** The template's name changes whenever the migration list does, so a stale one is never used. */
export function templateName(): string {
  const hash = createHash('sha256').update(Object.keys(migrations).join('\n')).digest('hex');
  return `ferry_tpl_${hash.slice(0, 12)}`;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Builds (once per migration set) a migrated database that each test file clones. The template
 * takes no connections once built: `CREATE DATABASE … TEMPLATE` fails while any session is
 * connected to its source (autovacuum's included), and with none allowed a clone never finds it
 * busy, so no clone has to wait and retry.
 */
export async function ensureTemplate(serverUrl: string): Promise<string> {
  const name = templateName();
  const found = await admin(serverUrl, async (c) => {
    const r = await c.query<{ datallowconn: boolean }>(
      'select datallowconn from pg_database where datname = $1',
      [name],
    );
    return r.rows[0];
  });
  if (found) {
    // Built by an earlier version of this file, which left connections allowed.
    if (found.datallowconn) await closeToConnections(serverUrl, name);
    return name;
  }
  // Build under a temporary name and rename, so a half-migrated template is never cloned.
  const building = `${name}_b${randomBytes(3).toString('hex')}`;
  await migrateToLatest(withDatabase(serverUrl, building));
  const renamed = await admin(serverUrl, async (c) => {
    try {
      await c.query(`alter database "${building}" rename to "${name}"`);
      return true;
    } catch {
      await c.query(`drop database if exists "${building}"`);
      return false;
    }
  });
  // Two builders at once (two runs starting together): the one whose rename won closes it.
  if (renamed) await closeToConnections(serverUrl, name);
  return name;
}

async function closeToConnections(serverUrl: string, name: string): Promise<void> {
  await admin(serverUrl, (c) => c.query(`alter database "${name}" with allow_connections false`));
}

/**
 * A fresh database cloned from the template (which allows connections itself: that is a per-
 * database setting, not copied). Its commits do not wait for the WAL to reach the disk
 * (synchronous_commit off, for every connection to it, the services a test starts included): what
 * is lost that way is lost only if Postgres itself or the machine crashes, which no test does, and
 * a commit costs 0.35 ms instead of 2.3 ms here.
 */
export async function cloneTemplate(serverUrl: string, template: string): Promise<string> {
  const name = `ferry_t_${randomBytes(6).toString('hex')}`;
  // One admin connection for the clone and its setting: a Postgres connection costs 25 ms of CPU
  // on a PVM host (measured 2026-11-28), and a run of the suite makes about 80 clones.
  await admin(serverUrl, async (c) => {
    await c.query(`create database "${name}" template "${template}"`);
    await c.query(`alter database "${name}" set synchronous_commit = off`);
  });
  return name;
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await admin(serverUrl, (c) => c.query(`drop database if exists "${name}" with (force)`));
}
