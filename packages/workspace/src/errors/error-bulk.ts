import { AppError, isId, newId } from '@ferry/core';
import type { Db, ErrorBulkAction, ErrorBulkActionKind, ErrorGroup } from '@ferry/db';
import { writeEvent } from '@ferry/queues';
import { sql } from 'kysely';
import { z } from 'zod';
import { can } from '../members/capabilities.js';
import { findAssignable } from '../members/assignable.js';
import { assigneeIdSchema, type AssignActor } from './error-assign.js';
import { SEARCH_QUERY_MAX } from './search-query.js';
import { checkedSearch, searchCondition } from './search-sql.js';

/**
 * Bulk actions over error groups (issue 43): resolve, ignore, reopen, assign or merge a selection,
 * picked by a search (the page's "select all N matching", the API's `q`) or by ids (checked rows,
 * the API's `ids`). Asking for one (startErrorBulkAction) checks who asks and what, snapshots the
 * selection's ids into an error_bulk_actions row and writes its `error_bulk_requested` event in
 * the same transaction; a job (services/ingest-errors) then runs it chunk by chunk
 * (runErrorBulkAction, error-bulk-run.ts), and a small one is also run at once by the request.
 */

export const ERROR_BULK_ACTIONS = ['resolve', 'ignore', 'unresolve', 'assign', 'merge'] as const;
/** A selection larger than this is refused: narrow the search. Two workspaces' full lists fit. */
export const ERROR_BULK_MAX = 50_000;
/** Ids one request may name; more are picked with a search. */
export const ERROR_BULK_IDS_MAX = 1_000;
/** Selections up to this many groups are run by the request itself (one chunk): no waiting. */
export const ERROR_BULK_INLINE_MAX = 500;

const ACTION_MESSAGE = `Must be one of ${ERROR_BULK_ACTIONS.join(', ')}.`;

/** The API's body; the page's form is read into the same shape. */
export const errorBulkRequestSchema = z
  .object(
    {
      action: z.enum(ERROR_BULK_ACTIONS, ACTION_MESSAGE),
      // `assign` only: a member id, or null to unassign.
      assignee_id: assigneeIdSchema.optional(),
      q: z
        .string('Must be one search text.')
        .max(SEARCH_QUERY_MAX, `Must be at most ${SEARCH_QUERY_MAX} characters.`)
        .optional(),
      // `merge` only: the group the others go into (one of the selection); without it, the
      // selection's group with the most occurrences.
      target_id: z.string('Must be an error group id.').max(100).optional(),
      ids: z
        .array(z.string('Must be error group ids.'), 'Must be a list of error group ids.')
        .min(1, 'Name at least one error group.')
        .max(ERROR_BULK_IDS_MAX, `Name at most ${ERROR_BULK_IDS_MAX} groups; pick more with "q".`)
        .optional(),
    },
    'Send a JSON object with "action" and either "q" or "ids".',
  )
  .refine((body) => (body.q === undefined) !== (body.ids === undefined), {
    message: 'Send exactly one of "q" (every group the search matches) and "ids".',
    path: ['q'],
  })
  .refine((body) => body.action !== 'assign' || body.assignee_id !== undefined, {
    message: '"assign" needs "assignee_id": a member id, or null to unassign.',
    path: ['assignee_id'],
  })
  .refine((body) => body.action === 'merge' || body.target_id === undefined, {
    message: '"target_id" goes with "action": "merge".',
    path: ['target_id'],
  })
  .refine((body) => body.action === 'assign' || body.assignee_id === undefined, {
    message: '"assignee_id" goes with "action": "assign".',
    path: ['assignee_id'],
  });
export type ErrorBulkRequest = z.output<typeof errorBulkRequestSchema>;

/** Which groups: every one a search matches (as the viewer sees it), or these ids. */
export type BulkSelection =
  { query: string; viewerMemberId?: string | undefined } | { ids: readonly string[] };

export interface StartBulkInput {
  workspaceId: string;
  actor: AssignActor;
  action: ErrorBulkActionKind;
  /** `assign`: a member id, or null for nobody. */
  assigneeId?: string | null | undefined;
  /** `merge`: the group to merge into, one of the selection (else the one seen most). */
  targetId?: string | undefined;
  selection: BulkSelection;
}

function refused(field: string, message: string): AppError {
  return new AppError('validation_failed', `The bulk action is not valid. ${message}`, {
    fields: { [field]: message },
  });
}

/** The selection's group ids in id order: the search's matches, or the ids that are groups here. */
async function selectedIds(db: Db, workspaceId: string, selection: BulkSelection) {
  if ('ids' in selection) {
    const ids = [...new Set(selection.ids)];
    const bad = ids.find((id) => !isId(id, 'errorGroup'));
    if (bad !== undefined) refusedId(bad);
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('error_groups')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('id', 'in', ids)
      .orderBy('id')
      .execute();
    return rows.map((row) => row.id);
  }
  const terms = await checkedSearch(db, workspaceId, selection.query, {
    viewerMemberId: selection.viewerMemberId,
  });
  const rows = await db
    .selectFrom('error_groups')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where(searchCondition(workspaceId, terms))
    .orderBy('id')
    .limit(ERROR_BULK_MAX + 1)
    .execute();
  return rows.map((row) => row.id);
}

function refusedId(id: string): never {
  throw refused('ids', `“${id.slice(0, 40)}” is not an error group id.`);
}

/** Merge keeps the group with the most occurrences (the oldest of equals) and folds the rest in. */
async function mergeTarget(db: Db, workspaceId: string, ids: readonly string[]): Promise<string> {
  const row = await db
    .selectFrom('error_groups')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', [...ids])
    .orderBy('occurrence_count', 'desc')
    .orderBy('first_seen_at', 'asc')
    .orderBy('id', 'asc')
    .limit(1)
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * What merging a selection would do, before it is asked for (the page's question): the group the
 * others would be merged into and how many there are. 422 as startErrorBulkAction would answer.
 */
export async function previewErrorBulkMerge(
  db: Db,
  workspaceId: string,
  selection: BulkSelection,
): Promise<{ target: ErrorGroup; others: number }> {
  const ids = await checkedSelection(db, workspaceId, selection);
  if (ids.length < 2) throw refused('ids', 'Merging needs at least two groups.');
  const targetId = await mergeTarget(db, workspaceId, ids);
  const target = await db
    .selectFrom('error_groups')
    .selectAll()
    .where('id', '=', targetId)
    .executeTakeFirstOrThrow();
  return { target, others: ids.length - 1 };
}

/** The selection's ids, or a 422: it matches nothing, or more than ERROR_BULK_MAX. */
async function checkedSelection(
  db: Db,
  workspaceId: string,
  selection: BulkSelection,
): Promise<string[]> {
  const ids = await selectedIds(db, workspaceId, selection);
  if (ids.length === 0) {
    throw 'query' in selection
      ? refused('q', `No error group matches “${selection.query}”: nothing to do.`)
      : refused('ids', 'None of those ids is an error group of this workspace.');
  }
  if (ids.length > ERROR_BULK_MAX) {
    throw refused(
      'q',
      `The search matches more than ${ERROR_BULK_MAX.toLocaleString('en-US')} groups: narrow it.`,
    );
  }
  return ids;
}

/**
 * Asks for a bulk action: checks the actor (a guest may not triage: 403) and the request (a
 * malformed search is a 422 naming its token, an assignee who cannot be assigned a 422, an empty
 * or oversized selection a 422), then writes the action and its event in one transaction.
 * Returns the action as written (`queued`); the caller may run a small one at once.
 */
export async function startErrorBulkAction(
  db: Db,
  input: StartBulkInput,
): Promise<ErrorBulkAction> {
  const { workspaceId, actor, action } = input;
  if (actor.kind === 'member' && !can(actor.role, 'errors.triage')) {
    throw new AppError('forbidden', 'Guests cannot triage error groups.');
  }
  let assigneeId: string | null = null;
  if (action === 'assign') {
    if (input.assigneeId === undefined) {
      throw refused('assignee_id', '"assign" needs an assignee: a member, or nobody.');
    }
    if (input.assigneeId !== null) {
      const assignee = await findAssignable(db, workspaceId, input.assigneeId, 'errors.read');
      if (!assignee) {
        throw refused(
          'assignee_id',
          'Pick an active member of this workspace; guests cannot be assigned.',
        );
      }
      assigneeId = assignee.id;
    }
  }
  const ids = await checkedSelection(db, workspaceId, input.selection);
  const query = 'query' in input.selection ? input.selection.query : null;
  let targetId: string | null = null;
  let groupIds = ids;
  if (action === 'merge') {
    if (ids.length < 2) throw refused('ids', 'Merging needs at least two groups.');
    if (input.targetId !== undefined && !ids.includes(input.targetId)) {
      throw refused('target_id', 'The group to merge into must be one of the selection.');
    }
    targetId = input.targetId ?? (await mergeTarget(db, workspaceId, ids));
    groupIds = ids.filter((id) => id !== targetId);
  }
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('error_bulk_actions')
      .values({
        id: newId('errorBulkAction'),
        workspace_id: workspaceId,
        created_by: actor.kind === 'member' ? actor.memberId : null,
        action,
        assignee_member_id: assigneeId,
        target_group_id: targetId,
        query,
        group_ids: groupIds,
        total: groupIds.length,
        error: null,
        finished_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await writeEvent(trx, 'error_bulk_requested', { actionId: row.id, workspaceId });
    return row;
  });
}

/** One action of the workspace; undefined for another workspace's or an unknown id. */
export async function findErrorBulkAction(
  db: Db,
  workspaceId: string,
  actionId: string,
): Promise<ErrorBulkAction | undefined> {
  if (!isId(actionId, 'errorBulkAction')) return undefined;
  return db
    .selectFrom('error_bulk_actions')
    .selectAll()
    .where('id', '=', actionId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

const when = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601, UTC.' });

/** A bulk action as the API answers it (issue 46: the schema is both the doc and the type). */
export const errorBulkActionJsonSchema = z.object({
  id: z.string().meta({ example: 'ebk_01m95vcs448p8d8nkpkmbpan9e' }),
  action: z.enum(ERROR_BULK_ACTIONS),
  status: z.enum(['queued', 'running', 'done', 'failed']),
  q: z
    .string()
    .nullable()
    .meta({ description: 'The search that picked the groups; null for ids.' }),
  assignee_id: z
    .string()
    .nullable()
    .optional()
    .meta({ description: '`assign` only: who gets the groups; null unassigns.' }),
  target_id: z
    .string()
    .optional()
    .meta({ description: '`merge` only: the group the others go into.' }),
  total: z.number().int().min(0).meta({ description: 'Groups selected.' }),
  processed: z.number().int().min(0).meta({ description: 'Groups done so far.' }),
  changed: z.number().int().min(0).meta({ description: 'Groups the action changed.' }),
  error: z.string().nullable().meta({ description: 'Why it failed; null unless `failed`.' }),
  created_at: when,
  finished_at: when.nullable(),
});

/** The API's view of an action: what, how far, and how it ended; never the ids themselves. */
export function errorBulkActionJson(
  action: ErrorBulkAction,
): z.infer<typeof errorBulkActionJsonSchema> {
  return {
    id: action.id,
    action: action.action,
    status: action.status,
    q: action.query,
    assignee_id: action.action === 'assign' ? action.assignee_member_id : undefined,
    target_id: action.target_group_id ?? undefined,
    total: action.total,
    processed: action.processed,
    changed: action.changed,
    error: action.error,
    created_at: action.created_at.toISOString(),
    finished_at: action.finished_at?.toISOString() ?? null,
  };
}

/** Unfinished actions of the workspace, newest first: the Errors page says they are running. */
export async function runningErrorBulkActions(
  db: Db,
  workspaceId: string,
): Promise<ErrorBulkAction[]> {
  return db
    .selectFrom('error_bulk_actions')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('status', 'in', ['queued', 'running'])
    .where(sql<boolean>`created_at > now() - interval '1 day'`)
    .orderBy('created_at', 'desc')
    .limit(5)
    .execute();
}
