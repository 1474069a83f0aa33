import { expect } from 'vitest';
import type { Db } from '@ferry/db';

/** A report of one of `groups` groups (class and top frame both vary with it). */
export const report = (i: number, groups = 7) => ({
  error_class: `KillError${i % groups}`,
  message: `report ${i}`,
  backtrace: [`worker.js:${i % groups}:1`],
  context: { i },
});

/**
 * POSTs `requests` batches of `perRequest` reports, `parallel` at a time; every answer must be a
 * 202. Returns every id the answers gave: the reports the service promised to keep.
 */
export async function acceptReports(
  url: string,
  publicKey: string,
  requests: number,
  perRequest: number,
  parallel = 8,
): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < requests) {
      const n = next++;
      const res = await fetch(`${url}/ingest/errors`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Service-Tenant': publicKey },
        body: JSON.stringify({
          errors: Array.from({ length: perRequest }, (_, j) => report(n * perRequest + j)),
        }),
      });
      expect(res.status).toBe(202);
      const body = (await res.json()) as { accepted: number; ids: string[] };
      expect(body.accepted).toBe(perRequest);
      ids.push(...body.ids);
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return ids;
}

export async function occurrenceCount(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('error_occurrences')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Every accepted id is stored exactly once, nothing else is, and each group counts exactly the
 * occurrences it has (a job written twice would count twice).
 */
export async function expectStoredOnce(
  db: Db,
  workspaceId: string,
  accepted: readonly string[],
): Promise<void> {
  expect(new Set(accepted).size).toBe(accepted.length);
  const rows = await db
    .selectFrom('error_occurrences')
    .select(['id', 'group_id'])
    .where('workspace_id', '=', workspaceId)
    .execute();
  expect(rows.length).toBe(accepted.length);
  expect(rows.map((row) => row.id).sort()).toEqual([...accepted].sort());

  const perGroup = new Map<string, number>();
  for (const row of rows) perGroup.set(row.group_id, (perGroup.get(row.group_id) ?? 0) + 1);
  const groups = await db
    .selectFrom('error_groups')
    .select(['id', 'occurrence_count'])
    .where('workspace_id', '=', workspaceId)
    .execute();
  expect(
    Object.fromEntries(groups.map((group) => [group.id, Number(group.occurrence_count)])),
  ).toEqual(Object.fromEntries(perGroup));
  expect(groups.reduce((sum, group) => sum + Number(group.occurrence_count), 0)).toBe(
    accepted.length,
  );
}
