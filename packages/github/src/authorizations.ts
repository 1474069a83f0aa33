import { newId, type SecretBox } from '@ferry/core';
import type { Db, GithubAuthorization } from '@ferry/db';
import type { GitHubClient, UserTokens } from './client.js';
import { GitHubError } from './errors.js';

/**
 * Members' GitHub authorizations (the App's OAuth web flow). Both tokens are sealed at rest. A
 * user token is refreshed shortly before it expires; GitHub makes each refresh token single use,
 * so a refresh happens under a row lock and the new pair is stored in the same transaction.
 */

/** Refresh when less than this is left, so a token never expires mid-flow. */
const REFRESH_MARGIN_MS = 5 * 60_000;

export async function saveAuthorization(
  db: Db,
  box: SecretBox,
  input: {
    workspaceId: string;
    memberId: string;
    user: { login: string; id: string };
    tokens: UserTokens;
  },
): Promise<void> {
  const sealed = sealTokens(box, input.tokens);
  await db
    .insertInto('github_authorizations')
    .values({
      id: newId('githubAuthorization'),
      workspace_id: input.workspaceId,
      member_id: input.memberId,
      github_login: input.user.login,
      github_user_id: input.user.id,
      ...sealed,
    })
    .onConflict((oc) =>
      oc.column('member_id').doUpdateSet({
        github_login: input.user.login,
        github_user_id: input.user.id,
        ...sealed,
        updated_at: new Date(),
      }),
    )
    .execute();
}

function sealTokens(box: SecretBox, tokens: UserTokens) {
  return {
    access_token_sealed: box.encrypt(tokens.token),
    access_expires_at: tokens.expiresAt,
    refresh_token_sealed: tokens.refreshToken ? box.encrypt(tokens.refreshToken) : null,
    refresh_expires_at: tokens.refreshTokenExpiresAt,
  };
}

export async function removeAuthorization(db: Db, memberId: string): Promise<void> {
  await db.deleteFrom('github_authorizations').where('member_id', '=', memberId).execute();
}

export function findAuthorization(
  db: Db,
  memberId: string,
): Promise<GithubAuthorization | undefined> {
  return db
    .selectFrom('github_authorizations')
    .selectAll()
    .where('member_id', '=', memberId)
    .executeTakeFirst();
}

export interface AuthorizedMember {
  memberId: string;
  name: string;
  email: string;
  githubLogin: string;
}

/** The 'Dispatch identity' choices: current members who authorized GitHub, by name. */
export function listAuthorizedMembers(db: Db, workspaceId: string): Promise<AuthorizedMember[]> {
  return db
    .selectFrom('github_authorizations as a')
    .innerJoin('members as m', 'm.id', 'a.member_id')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select([
      'a.member_id as memberId',
      'u.name as name',
      'u.email as email',
      'a.github_login as githubLogin',
    ])
    .where('a.workspace_id', '=', workspaceId)
    .where('m.left_at', 'is', null)
    .orderBy('u.name')
    .execute();
}

/** Thrown when a member's authorization cannot give a working token: they must authorize again. */
export class ReauthorizeError extends Error {
  constructor(
    readonly memberId: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'ReauthorizeError';
  }
}

/**
 * A working user token for the member: the stored one, or a refreshed one when it expires soon
 * (or `force`, after GitHub answered 401 to it). Two callers racing to refresh take turns on the
 * row lock; the second sees the first's fresh token and does not spend the refresh token again.
 */
export async function userTokenFor(
  db: Db,
  box: SecretBox,
  client: GitHubClient,
  memberId: string,
  options: { force?: boolean; now?: Date } = {},
): Promise<string> {
  const now = options.now ?? new Date();
  const current = await findAuthorization(db, memberId);
  if (!current) throw new ReauthorizeError(memberId, 'has not authorized GitHub');
  if (!options.force && !expiresSoon(current, now)) return box.decrypt(current.access_token_sealed);
  const usedToken = current.access_token_sealed;

  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('github_authorizations')
      .selectAll()
      .where('member_id', '=', memberId)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw new ReauthorizeError(memberId, 'has not authorized GitHub');
    // Someone refreshed while we waited for the lock: theirs is the new token.
    if (row.access_token_sealed !== usedToken && !expiresSoon(row, now)) {
      return box.decrypt(row.access_token_sealed);
    }
    if (!row.refresh_token_sealed) {
      throw new ReauthorizeError(memberId, 'has a GitHub token that expired and cannot be renewed');
    }
    if (row.refresh_expires_at && row.refresh_expires_at.getTime() <= now.getTime()) {
      throw new ReauthorizeError(memberId, 'has a GitHub authorization that expired');
    }
    let fresh: UserTokens;
    try {
      fresh = await client.refreshUserToken(box.decrypt(row.refresh_token_sealed));
    } catch (error) {
      if (error instanceof GitHubError && error.retryable) throw error;
      throw new ReauthorizeError(memberId, 'has a GitHub authorization GitHub no longer accepts');
    }
    await trx
      .updateTable('github_authorizations')
      .set({ ...sealTokens(box, fresh), updated_at: new Date() })
      .where('id', '=', row.id)
      .execute();
    return fresh.token;
  });
}

function expiresSoon(row: Pick<GithubAuthorization, 'access_expires_at'>, now: Date): boolean {
  return (
    row.access_expires_at !== null &&
    row.access_expires_at.getTime() - now.getTime() < REFRESH_MARGIN_MS
  );
}
