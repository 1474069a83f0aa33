import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as normalStoredUrls from '../src/migrations/2026_12_06_1000_normal_stored_urls.js';
import { migrations } from '../src/migrations/index.js';
import { scratchDatabase } from './scratch-database.js';

/**
 * Issue 47: URLs stored before e36a020 kept what was typed; migration 1000 brings them to the
 * normal form new ones are stored in. Run on the two columns it reads (the rest of each table does
 * not matter to it), with more rows than one of its batches.
 */
describe('migration 2026_12_06_1000_normal_stored_urls', () => {
  const database = scratchDatabase();
  let db: Kysely<unknown>;

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: new URL('/postgres', database.url).href });
    await admin.connect();
    await admin.query(`create database "${new URL(database.url).pathname.slice(1)}"`);
    await admin.end();
    db = new Kysely({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url }) }),
    });
    await sql`create table outgoing_webhooks (id text primary key, target_url text not null)`.execute(
      db,
    );
    await sql`create table agents (id text primary key, wake_url text)`.execute(db);
  });
  afterAll(async () => {
    await db?.destroy();
    await database.drop();
  });

  it('is in the index, after the migrations before it', () => {
    const names = Object.keys(migrations);
    expect(names).toContain('2026_12_06_1000_normal_stored_urls');
    expect(names.indexOf('2026_12_06_1000_normal_stored_urls')).toBe(
      names.indexOf('2026_12_06_0900_feedback_error_links') + 1,
    );
  });

  it('stores each URL as new URL(x).href, leaving normal ones and nulls alone', async () => {
    const hooks: [string, string, string][] = [
      // [id, as typed, as it must end]
      ['h0001', 'http://1.1.1.1\\@127.0.0.1/', 'http://1.1.1.1/@127.0.0.1/'],
      ['h0002', 'HTTPS://Example.COM:443/a/../b', 'https://example.com/b'],
      ['h0003', 'https://example.com/hook', 'https://example.com/hook'],
      ['h0004', 'https://example.com/a b', 'https://example.com/a%20b'],
    ];
    // Past one batch (500), so the second read starts where the first ended.
    for (let i = 0; i < 600; i++) {
      const id = `h1${String(i).padStart(4, '0')}`;
      hooks.push([id, `http://example.com:80/${i}`, `http://example.com/${i}`]);
    }
    await sql`insert into outgoing_webhooks (id, target_url) values ${sql.join(
      hooks.map(([id, typed]) => sql`(${id}, ${typed})`),
    )}`.execute(db);
    await sql`insert into agents (id, wake_url) values
      ('a1', 'http://LOCALHOST:8080'), ('a2', null), ('a3', 'http://127.0.0.1:9/wake')`.execute(db);

    await normalStoredUrls.up(db);

    const stored = await sql<{ id: string; target_url: string }>`
      select id, target_url from outgoing_webhooks order by id`.execute(db);
    expect(stored.rows.map((row) => [row.id, row.target_url])).toEqual(
      hooks.map(([id, , normal]) => [id, normal]).sort(([a], [b]) => (a! < b! ? -1 : 1)),
    );
    const agents = await sql<{ id: string; wake_url: string | null }>`
      select id, wake_url from agents order by id`.execute(db);
    expect(agents.rows).toEqual([
      { id: 'a1', wake_url: 'http://localhost:8080/' },
      { id: 'a2', wake_url: null },
      { id: 'a3', wake_url: 'http://127.0.0.1:9/wake' },
    ]);

    // Run again (a retried migration): nothing changes.
    await normalStoredUrls.up(db);
    const again = await sql<{ id: string; target_url: string }>`
      select id, target_url from outgoing_webhooks order by id`.execute(db);
    expect(again.rows).toEqual(stored.rows);
  });
});
