import { AppError, generateSecret, hashSecret, isId, newId, visiblePrefix } from '@ferry/core';
import type { ApiToken, Db, TokenScope, Workspace } from '@ferry/db';
import { sql } from 'kysely';
import { z } from 'zod';
import { splitWorkspace, workspaceJoinColumns } from '../workspaces/workspace-join.js';
import { listPage, pageWindow, type ListPage, type PageRequest } from '../common/paging.js';

/** Every scope a token can hold, in the order the form lists them, with what each one unlocks. */
export const TOKEN_SCOPES: readonly { scope: TokenScope; description: string }[] = [
  { scope: 'platform:dispatch', description: 'Lets a local agent connect to this workspace.' },
  {
    scope: 'tenant:write',
    description: 'File feedback and dispatch it through the REST API (includes tenant:read).',
  },
  { scope: 'tenant:read', description: 'Read feedback tickets and repositories.' },
  {
    scope: 'releases:write',
    description: 'Upload source maps and create releases and deploys with sentry-cli.',
  },
];

const SCOPE_NAMES = TOKEN_SCOPES.map((s) => s.scope) as [TokenScope, ...TokenScope[]];

/**
 * What a scope also grants. Only reads are implied: a writer must be able to read back what it
 * wrote, but nothing implies `platform:dispatch` (an agent connection is a different power).
 */
const IMPLIES: Partial<Record<TokenScope, readonly TokenScope[]>> = {
  'tenant:write': ['tenant:read'],
};

export function grantsScope(held: readonly TokenScope[], needed: TokenScope): boolean {
  return held.some((scope) => scope === needed || (IMPLIES[scope] ?? []).includes(needed));
}

/** Raw tokens look like `fry_<43 base64url chars>`; anything else is refused before a lookup. */
export const TOKEN_KIND = 'fry';
const TOKEN_SHAPE = /^fry_[A-Za-z0-9_-]{43}$/;

export function looksLikeToken(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

/** A form posts one `scopes` value as a string and several as an array; both become an array. */
const scopesField = z.preprocess(
  (value: unknown): unknown[] =>
    value === undefined || value === ''
      ? []
      : Array.isArray(value)
        ? (value as unknown[])
        : [value],
  z
    .array(z.enum(SCOPE_NAMES, 'Pick scopes from the list.'))
    .min(1, 'Pick at least one scope.')
    .transform((scopes) => [...new Set(scopes)]),
);

export const createTokenSchema = z.object({
  name: z
    .string('Give the token a name.')
    .trim()
    .min(1, 'Give the token a name.')
    .max(80, 'At most 80 characters.'),
  scopes: scopesField,
});
export type CreateTokenInput = z.infer<typeof createTokenSchema>;

/**
 * Issues a token. Only the SHA-256 hash and a short prefix are stored; the raw value is returned
 * to the caller once and exists nowhere else, so it can never be shown again.
 */
export async function createToken(
  db: Db,
  workspaceId: string,
  createdBy: string | null,
  input: CreateTokenInput,
): Promise<{ token: ApiToken; raw: string }> {
  const raw = generateSecret(TOKEN_KIND);
  const token = await db
    .insertInto('api_tokens')
    .values({
      id: newId('apiToken'),
      workspace_id: workspaceId,
      name: input.name,
      scopes: input.scopes,
      token_hash: hashSecret(raw),
      prefix: visiblePrefix(raw),
      created_by: createdBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { token, raw };
}

export interface TokenListItem {
  id: string;
  name: string;
  scopes: TokenScope[];
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_reason: string | null;
  created_by_name: string | null;
}

/**
 * Revokes every live token this seat minted, saying why (the maker left or lost the role that
 * mints tokens). Runs in the caller's transaction, with the seat change that causes it.
 */
export async function revokeTokensOf(db: Db, memberId: string, reason: string): Promise<number> {
  const revoked = await db
    .updateTable('api_tokens')
    .set({ revoked_at: new Date(), revoked_reason: reason })
    .where('created_by', '=', memberId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(revoked.numUpdatedRows);
}

/**
 * Active tokens first (newest first), then revoked ones, which stay listed as a record; one page
 * of them with the total.
 */
export async function listTokens(
  db: Db,
  workspaceId: string,
  request: PageRequest = {},
): Promise<ListPage<TokenListItem>> {
  const { limit, offset } = pageWindow(request);
  const rows = db
    .selectFrom('api_tokens')
    .leftJoin('members', 'members.id', 'api_tokens.created_by')
    .leftJoin('users', 'users.id', 'members.user_id')
    .select([
      'api_tokens.id',
      'api_tokens.name',
      'api_tokens.scopes',
      'api_tokens.prefix',
      'api_tokens.created_at',
      'api_tokens.last_used_at',
      'api_tokens.revoked_at',
      'api_tokens.revoked_reason',
      'users.name as created_by_name',
    ])
    .where('api_tokens.workspace_id', '=', workspaceId)
    .orderBy(sql`api_tokens.revoked_at is null`, 'desc')
    .orderBy('api_tokens.created_at', 'desc')
    .orderBy('api_tokens.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  const total = db
    .selectFrom('api_tokens')
    .where('workspace_id', '=', workspaceId)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  const [items, counted] = await Promise.all([rows, total]);
  return listPage(items, Number(counted.n), request);
}

/** A token of this workspace; junk ids and other workspaces' ids are both "not found". */
export async function findToken(
  db: Db,
  workspaceId: string,
  tokenId: string,
): Promise<ApiToken | undefined> {
  if (!isId(tokenId, 'apiToken')) return undefined;
  return db
    .selectFrom('api_tokens')
    .selectAll()
    .where('id', '=', tokenId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/**
 * Revokes a token at once: the next API call with it is refused (the lookup filters on
 * revoked_at). Revoking twice keeps the first time. The row stays so the list shows the history.
 */
export async function revokeToken(
  db: Db,
  workspaceId: string,
  tokenId: string,
): Promise<{ token: ApiToken; alreadyRevoked: boolean }> {
  const existing = await findToken(db, workspaceId, tokenId);
  if (!existing) throw new AppError('not_found', 'No such API token.');
  if (existing.revoked_at) return { token: existing, alreadyRevoked: true };
  const token = await db
    .updateTable('api_tokens')
    .set({ revoked_at: new Date() })
    .where('id', '=', tokenId)
    .where('workspace_id', '=', workspaceId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { token, alreadyRevoked: false };
}

export interface AuthenticatedToken {
  token: ApiToken;
  workspace: Workspace;
}

/**
 * The live token for a raw value, with its workspace. The lookup is by SHA-256 hash through the
 * unique index: the database compares hashes, so timing reveals nothing about the secret itself.
 */
export async function findLiveToken(db: Db, raw: string): Promise<AuthenticatedToken | undefined> {
  if (!looksLikeToken(raw)) return undefined;
  const row = await db
    .selectFrom('api_tokens')
    .innerJoin('workspaces', 'workspaces.id', 'api_tokens.workspace_id')
    .selectAll('api_tokens')
    .select(workspaceJoinColumns)
    .where('api_tokens.token_hash', '=', hashSecret(raw))
    .where('api_tokens.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const { workspace, rest: token } = splitWorkspace(row);
  return { token, workspace };
}

/** How stale `last_used_at` may get: a busy integration must not write a row on every call. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Records that the token was used, at most once a minute. The row we just read decides whether a
 * write is due at all; the WHERE clause keeps concurrent requests from all writing it.
 */
export async function touchToken(
  db: Db,
  token: Pick<ApiToken, 'id' | 'last_used_at'>,
  now = new Date(),
): Promise<boolean> {
  if (token.last_used_at && now.getTime() - token.last_used_at.getTime() < LAST_USED_RESOLUTION_MS)
    return false;
  const cutoff = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  const result = await db
    .updateTable('api_tokens')
    .set({ last_used_at: now })
    .where('id', '=', token.id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', cutoff)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
