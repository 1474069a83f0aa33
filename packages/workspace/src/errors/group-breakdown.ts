import { sql } from 'kysely';
import type { Db } from '@ferry/db';

/**
 * The group page's tag breakdown and occurrence charts (issue 41): what a developer asks first of
 * an error (only Chrome? only the new release? one URL?) and when it happens. Both are counted over
 * the group's retained occurrences at read time, along error_occurrences_group_idx; the tags come
 * from the small `tags` column the writer fills (detailTags), not from each occurrence's detail.
 */

export const TOP_TAG_VALUES = 5;

export interface TagValueShare {
  value: string;
  count: number;
  /** Of the group's retained occurrences, 0 to 1. */
  share: number;
}

export interface TagBreakdown {
  key: string;
  /** The top TOP_TAG_VALUES values, most frequent first. */
  values: TagValueShare[];
  /** Occurrences with this tag whose value is not among the top ones. */
  others: number;
}

/** The keys every reader looks for first, in this order; the SDK's other tags follow by name. */
const FIRST_KEYS = ['environment', 'release', 'browser', 'os', 'url', 'runtime', 'device'];

function keyOrder(a: string, b: string): number {
  const rank = (key: string) => {
    const at = FIRST_KEYS.indexOf(key);
    return at < 0 ? FIRST_KEYS.length : at;
  };
  return rank(a) - rank(b) || a.localeCompare(b);
}

/** The most tag keys shown: a group whose events carry a hundred tags still reads. */
const MAX_KEYS = 20;

export async function tagBreakdown(
  db: Db,
  workspaceId: string,
  groupId: string,
): Promise<{ total: number; tags: TagBreakdown[] }> {
  // environment, release and url are SPEC.md's own columns; the rest is the writer's tags map.
  // The URL is counted without its query string: one page, whatever it was asked.
  const { rows } = await sql<{ key: string; value: string; n: string; total: string }>`
    with o as (
      select environment, app_version, url, tags from error_occurrences
      where workspace_id = ${workspaceId} and group_id = ${groupId}
    ),
    pairs as (
      select 'environment' as key, environment as value from o
      union all select 'release', app_version from o
      union all select 'url', split_part(split_part(url, '?', 1), '#', 1) from o
      union all select t.key, t.value from o, jsonb_each_text(coalesce(o.tags, '{}'::jsonb)) t
    )
    select key, value, count(*) as n, (select count(*) from o) as total
    from pairs where value is not null and value <> ''
    group by key, value`.execute(db);
  const total = Number(rows[0]?.total ?? 0);
  const byKey = new Map<string, { value: string; count: number }[]>();
  for (const row of rows) {
    const list = byKey.get(row.key) ?? [];
    list.push({ value: row.value, count: Number(row.n) });
    byKey.set(row.key, list);
  }
  const tags = [...byKey.keys()]
    .sort(keyOrder)
    .slice(0, MAX_KEYS)
    .map((key) => {
      const values = byKey
        .get(key)!
        .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
      const top = values.slice(0, TOP_TAG_VALUES);
      return {
        key,
        values: top.map((v) => ({ ...v, share: total ? v.count / total : 0 })),
        others: values.slice(TOP_TAG_VALUES).reduce((sum, v) => sum + v.count, 0),
      };
    });
  return { total, tags };
}

/** Retained occurrences per hour over the last 24 hours, oldest first, this hour last. */
export async function occurrenceHours(
  db: Db,
  workspaceId: string,
  groupId: string,
  now = new Date(),
): Promise<number[]> {
  const hours = Array.from({ length: 24 }, () => 0);
  const thisHour = Math.floor(now.getTime() / 3_600_000) * 3_600_000;
  const since = new Date(thisHour - 23 * 3_600_000);
  const rows = await db
    .selectFrom('error_occurrences')
    .select([
      sql<string>`floor(extract(epoch from occurred_at - ${since}::timestamptz) / 3600)`.as('hour'),
      (eb) => eb.fn.countAll<string>().as('n'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('group_id', '=', groupId)
    .where('occurred_at', '>=', since)
    .groupBy('hour')
    .execute();
  for (const row of rows) {
    const hour = Number(row.hour);
    // Up to an hour ahead is allowed at ingest: counted in this hour.
    if (hour >= 0) hours[Math.min(hour, 23)]! += Number(row.n);
  }
  return hours;
}
