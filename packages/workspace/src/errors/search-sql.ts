import { AppError, storable } from '@ferry/core';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '@ferry/db';
import { escapeLike } from '../common/like.js';
import { parseSearch, SearchSyntaxError, type SearchTerm } from './search-query.js';

/**
 * The search grammar's terms (search-query.ts) as one SQL condition on `error_groups`, for the
 * list, its tab counts and the live line alike. Group fields (status, source, environments, times,
 * counts, class and message) are read on the group row; release, level, url, tags and the culprit
 * are read on its retained occurrences: a group matches when any of them does (a semi-join
 * `error_groups.id in (select group_id …)` scoped to the workspace). Indexes keep each of those
 * reads off a scan, and lead with the workspace (migration 2026_12_06_0400_error_search_by_workspace,
 * measured by bench/search), so a probe never reads other workspaces' matches: pg_trgm for free
 * text, url and culprit, (workspace_id, group_id) including tags (index-only) and GIN on tags for
 * tag terms, (workspace_id, app_version) for release. Level has no index: it is read on the
 * workspace's retained occurrences, which retention caps.
 *
 * Why not a per-group tag summary (DESIGN.md mentions one): it would need the writer and pruning
 * to keep counts right, and the retained occurrences are capped per workspace; the semi-join over
 * the GIN index answers "any retained occurrence" exactly, with no second copy to drift.
 */

/** A value with `*` globs as a LIKE pattern: everything else matches literally. */
export function globPattern(value: string): string {
  return value.split('*').map(escapeLike).join('%');
}

const isGlob = (value: string): boolean => value.includes('*');

/** `column = value`, or `column like pattern` when the value has a glob. */
function matches(column: RawBuilder<unknown>, value: string): RawBuilder<boolean> {
  return isGlob(value)
    ? sql<boolean>`${column} like ${globPattern(value)}`
    : sql<boolean>`${column} = ${value}`;
}

/** Groups with a retained occurrence of the workspace where `condition` holds. */
function anyOccurrence(workspaceId: string, condition: RawBuilder<boolean>): RawBuilder<boolean> {
  return sql<boolean>`error_groups.id in (select o.group_id from error_occurrences o
    where o.workspace_id = ${workspaceId} and ${condition})`;
}

/**
 * Free text: the class, the latest message, or a retained occurrence's culprit (top frame). As one
 * `id in (… union all …)` rather than three ORed conditions on the row: each arm then reads its own
 * trigram index (the class and message ones ORed in a bitmap), where an OR with a subquery in it
 * made Postgres test every group of the workspace (bench/search: 24 ms -> 6 ms for the counts).
 * The same groups either way: a group's own row is in the first arm exactly when it matches.
 */
function textCondition(workspaceId: string, text: string): RawBuilder<boolean> {
  const pattern = `%${escapeLike(text)}%`;
  return sql<boolean>`error_groups.id in (select g.id from error_groups g
      where g.workspace_id = ${workspaceId}
        and (g.error_class ilike ${pattern} or g.latest_message ilike ${pattern})
    union all select o.group_id from error_occurrences o
      where o.workspace_id = ${workspaceId} and o.backtrace[1] ilike ${pattern})`;
}

/**
 * `assigned:none` is a group nobody holds; `me` and an email are the seat checkedSearch resolved
 * (error_groups.assignee_member_id, along error_groups_assignee_idx).
 */
function assignedCondition(term: SearchTerm & { kind: 'assigned' }): RawBuilder<boolean> {
  if (term.assignee === 'none') return sql<boolean>`error_groups.assignee_member_id is null`;
  if (term.memberId === undefined) {
    throw new Error('assigned: term not resolved: checkedSearch resolves it before SQL');
  }
  return sql<boolean>`error_groups.assignee_member_id = ${term.memberId}`;
}

function termCondition(workspaceId: string, term: SearchTerm): RawBuilder<boolean> {
  switch (term.kind) {
    case 'status':
      return sql<boolean>`error_groups.status = ${term.status}`;
    case 'source':
      return sql<boolean>`error_groups.source = ${term.source}`;
    case 'assigned':
      return assignedCondition(term);
    case 'env':
      return isGlob(term.value)
        ? sql<boolean>`exists (select 1 from unnest(error_groups.environments) e
            where e like ${globPattern(term.value)})`
        : sql<boolean>`error_groups.environments @> array[${term.value}]::text[]`;
    case 'occurrence':
      if (term.field === 'url') {
        return anyOccurrence(workspaceId, sql<boolean>`o.url ilike ${globPattern(term.value)}`);
      }
      return anyOccurrence(
        workspaceId,
        matches(
          term.field === 'release'
            ? sql`o.app_version`
            : // A native report has no level of its own: it is an error (issue 43).
              sql`coalesce(o.detail->>'level', 'error')`,
          term.value,
        ),
      );
    case 'tag':
      return anyOccurrence(
        workspaceId,
        isGlob(term.value)
          ? sql<boolean>`o.tags ? ${term.key} and o.tags->>${term.key} like ${globPattern(term.value)}`
          : sql<boolean>`o.tags @> jsonb_build_object(${term.key}::text, ${term.value}::text)`,
      );
    case 'seen': {
      const column = sql.ref(
        term.which === 'first' ? 'error_groups.first_seen_at' : 'error_groups.last_seen_at',
      );
      return term.op === '>'
        ? sql<boolean>`${column} >= ${term.at}`
        : sql<boolean>`${column} < ${term.at}`;
    }
    case 'times-seen':
      return sql<boolean>`error_groups.occurrence_count ${sql.raw(term.op)} ${term.count}`;
    case 'text':
      return textCondition(workspaceId, term.text);
  }
}

/** Every term must hold; none is true. */
export function searchCondition(
  workspaceId: string,
  terms: readonly SearchTerm[],
): RawBuilder<boolean> {
  if (terms.length === 0) return sql<boolean>`true`;
  return sql<boolean>`(${sql.join(
    terms.map((term) => {
      const condition = termCondition(workspaceId, term);
      // SQL's null is neither true nor false: `not (assignee = X)` would drop the unassigned
      // groups that `!assigned:me` means. A negated term holds wherever its term does not.
      return term.negated ? sql`not coalesce(${condition}, false)` : condition;
    }),
    sql` and `,
  )})`;
}

function searchRefused(token: string, why: string): AppError {
  const message = `“${token}”: ${why}`;
  return new AppError('validation_failed', `The query is not valid. q: ${message}`, {
    fields: { q: message },
  });
}

/**
 * The query's terms, checked: a syntax error, or a tag key that no retained occurrence of the
 * workspace has (a typo such as `lvel:error` would otherwise list nothing, silently), is a 422
 * naming the token. Query strings skip the body's storable pass, and Postgres refuses a NUL.
 */
export async function checkedSearch(
  db: Db,
  workspaceId: string,
  query: string | undefined,
  options: { viewerMemberId?: string | undefined; now?: Date } = {},
): Promise<SearchTerm[]> {
  const now = options.now ?? new Date();
  if (!query?.trim()) return [];
  let terms: SearchTerm[];
  try {
    terms = parseSearch(storable(query), now);
  } catch (error) {
    if (error instanceof SearchSyntaxError) throw searchRefused(error.token, error.why);
    throw error;
  }
  const tagKeys = [...new Set(terms.flatMap((t) => (t.kind === 'tag' ? [t.key] : [])))];
  if (tagKeys.length > 0) {
    // One GIN probe per key (`tags ? key`), stopping at the first occurrence that has it.
    const known = await sql<{ key: string }>`select k.key from unnest(${tagKeys}::text[]) as k(key)
      where exists (select 1 from error_occurrences o
        where o.workspace_id = ${workspaceId} and o.tags ? k.key)`.execute(db);
    const found = new Set(known.rows.map((row) => row.key));
    const unknown = terms.find((t) => t.kind === 'tag' && !found.has(t.key));
    if (unknown?.kind === 'tag') {
      throw searchRefused(
        unknown.token,
        `unknown key ${unknown.key}: it is not a search key, nor a tag of any retained occurrence.`,
      );
    }
  }
  return Promise.all(terms.map((term) => resolveAssignee(db, workspaceId, term, options)));
}

/**
 * `assigned:me` is the viewer's seat (a page's member, an API token's maker); `assigned:<email>`
 * the workspace's seat of that email, or a 422 naming the token: an email nobody here has would
 * otherwise list nothing, silently.
 */
async function resolveAssignee(
  db: Db,
  workspaceId: string,
  term: SearchTerm,
  options: { viewerMemberId?: string | undefined },
): Promise<SearchTerm> {
  if (term.kind !== 'assigned' || term.assignee === 'none') return term;
  if (term.assignee === 'me') {
    if (!options.viewerMemberId) {
      throw searchRefused(term.token, 'me is a member, and this caller is none: use an email.');
    }
    return { ...term, memberId: options.viewerMemberId };
  }
  const seat = await db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select('members.id')
    .where('members.workspace_id', '=', workspaceId)
    .where(sql<boolean>`lower(users.email) = lower(${term.assignee.email})`)
    .executeTakeFirst();
  if (!seat) throw searchRefused(term.token, 'no member of this workspace has that email.');
  return { ...term, memberId: seat.id };
}
