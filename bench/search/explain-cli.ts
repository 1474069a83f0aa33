import { sql } from 'kysely';
import { createDb } from '@ferry/db';
import { log } from '../ingest/stats.js';
import { SEARCHES } from './dataset.js';
import { describeExplained, explainPage } from './explain.js';

/**
 * Diagnosis: the search bench's EXPLAIN of every search, against a database a run kept
 * (`BENCH_KEEP_DB=1` prints its URL), without seeding again:
 *   node --import tsx bench/search/explain-cli.ts postgres://…/ferry_t_… ['q' …]
 * The workspace is the one with the most groups (the first, by id, of equals), seen by its first
 * member.
 */
const [databaseUrl, ...queries] = process.argv.slice(2);
if (!databaseUrl) throw new Error('usage: explain-cli.ts <database url> [q …]');
const db = createDb(databaseUrl, { max: 1 });
try {
  const row = await sql<{ workspace_id: string; member_id: string }>`
    select g.workspace_id, (select m.id from members m where m.workspace_id = g.workspace_id
      order by m.id limit 1) as member_id
    from error_groups g group by g.workspace_id order by count(*) desc, g.workspace_id limit 1`.execute(
    db,
  );
  const target = row.rows[0];
  if (!target) throw new Error('no error groups in that database');
  for (const q of queries.length > 0 ? queries : SEARCHES) {
    log(`## q=${q}`);
    describeExplained(await explainPage(databaseUrl, target.workspace_id, target.member_id, q));
  }
} finally {
  await db.destroy();
}
