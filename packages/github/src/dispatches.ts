import { AppError, isId, newId } from '@ferry/core';
import { isUniqueViolation, type Db, type Dispatch } from '@ferry/db';
import { writeEvent } from '@ferry/queues';
import { dispatchJson, findFeedback, type DispatchJson } from '@ferry/workspace';
import { z } from 'zod';
import { findAuthorization } from './authorizations.js';
import { dispatchIdentity } from './identity.js';
import { dispatchReady, findRepo } from './installations.js';

/**
 * Starting a dispatch: the REST API and the ticket page's button both come here. The row and its
 * `dispatch_requested` event are written in one transaction, so the flow starts exactly when a
 * dispatch exists; the partial unique index keeps one in flight per ticket and repo.
 */

export const dispatchRequestSchema = z.object(
  {
    repo: z
      .string('Give "repo": a repository id from GET /api/v1/repos.')
      .trim()
      .min(1, 'Give "repo": a repository id from GET /api/v1/repos.')
      .meta({
        description: 'The repository’s id from GET /api/v1/repos.',
        example: 'rep_01m95vcs448p8d8nkpkmbpan9e',
      }),
  },
  'Send a JSON object with "repo".',
);

export type DispatchStarter =
  /** A REST call: a token has no person, so the workspace's dispatch identity is required. */
  | { via: 'api'; tokenId: string }
  /** The ticket page: runs as the identity, or as the person clicking when none is designated. */
  | { via: 'member'; memberId: string };

const IN_FLIGHT_INDEX = 'dispatches_in_flight_uq';

export async function requestDispatch(
  db: Db,
  input: { workspaceId: string; feedbackId: string; repoId: string; starter: DispatchStarter },
): Promise<DispatchJson> {
  const feedback = await findFeedback(db, input.workspaceId, input.feedbackId);
  if (!feedback) throw new AppError('not_found', 'No such feedback ticket in this workspace.');
  const repo = isId(input.repoId, 'githubRepo')
    ? await findRepo(db, input.workspaceId, input.repoId)
    : undefined;
  if (!repo) {
    throw new AppError(
      'not_found',
      'No such repository in this workspace: use an id from GET /api/v1/repos.',
    );
  }
  if (!dispatchReady(repo)) {
    throw new AppError(
      'repo_not_ready',
      `${repo.full_name} is not ready for dispatch: an admin must link and enable it on the GitHub settings page` +
        (repo.reachable ? '.' : ', and the GitHub App installation must include it.'),
    );
  }
  const runAs = await runAsMember(db, input.workspaceId, input.starter);

  try {
    const row = await db.transaction().execute(async (trx) => {
      const created = await trx
        .insertInto('dispatches')
        .values({
          id: newId('dispatch'),
          workspace_id: input.workspaceId,
          feedback_id: feedback.id,
          repo_id: repo.id,
          started_via: input.starter.via,
          started_by_member_id: input.starter.via === 'member' ? input.starter.memberId : null,
          started_by_token_id: input.starter.via === 'api' ? input.starter.tokenId : null,
          run_as_member_id: runAs,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await writeEvent(trx, 'dispatch_requested', {
        dispatchId: created.id,
        workspaceId: input.workspaceId,
      });
      return created;
    });
    return dispatchJson(row);
  } catch (error) {
    if (isUniqueViolation(error, IN_FLIGHT_INDEX)) {
      throw new AppError(
        'dispatch_in_flight',
        `A dispatch of this ticket to ${repo.full_name} is already running; poll GET /api/v1/feedback/${feedback.id} for its progress.`,
      );
    }
    throw error;
  }
}

async function runAsMember(db: Db, workspaceId: string, starter: DispatchStarter): Promise<string> {
  const identity = await dispatchIdentity(db, workspaceId);
  if (identity) return identity;
  if (starter.via === 'api') {
    throw new AppError(
      'no_dispatch_identity',
      'This workspace has no dispatch identity: an admin must choose one under Settings > GitHub (a member who authorized GitHub).',
    );
  }
  const own = await findAuthorization(db, starter.memberId);
  if (!own || own.workspace_id !== workspaceId) {
    throw new AppError(
      'no_dispatch_identity',
      'No dispatch identity is set, so this dispatch would run as you: authorize GitHub first (Settings > GitHub).',
    );
  }
  return starter.memberId;
}

export function findDispatch(db: Db, id: string): Promise<Dispatch | undefined> {
  if (!isId(id, 'dispatch')) return Promise.resolve(undefined);
  return db.selectFrom('dispatches').selectAll().where('id', '=', id).executeTakeFirst();
}
