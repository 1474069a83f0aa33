import { generateSecret, hashSecret, newId, visiblePrefix } from '@ferry/core';
import type { Db } from '@ferry/db';
import { z } from 'zod';

/**
 * The public side of a workspace, as the browser widget and error reporters see it: its public
 * key (X-Service-Tenant: not a secret, it only says where reports go) and the visitors of the
 * sites that embed the widget (X-Service-Visitor: a token a browser keeps; only its SHA-256 hash is
 * stored, like API tokens', since it is only ever checked).
 *
 * X-Service-Tenant -> workspace id. Every report request asks this, so answers (unknown keys
 * included, so a client spraying a wrong key cannot turn into a query per request) are kept in
 * process for a short while. A key's workspace never changes; a deleted workspace or a rotated key
 * is honoured within the TTL, which is all an ingest endpoint needs.
 */
export interface TenantCache {
  workspaceId(publicKey: string): Promise<string | undefined>;
}

/** How long an answer is kept: also how long a workspace's scrubbing change takes to apply. */
export const TENANT_CACHE_TTL_MS = 30_000;
/** Bounds memory against a flood of random keys: past it the cache starts over. */
const MAX_ENTRIES = 10_000;
/** Longer than any key we issue; not worth a query. */
const MAX_KEY_LENGTH = 200;

export function createTenantCache(db: Db, now: () => number = Date.now): TenantCache {
  const entries = new Map<string, { workspaceId: string | undefined; expiresAt: number }>();
  return {
    async workspaceId(publicKey) {
      if (publicKey === '' || publicKey.length > MAX_KEY_LENGTH) return undefined;
      const hit = entries.get(publicKey);
      if (hit && hit.expiresAt > now()) return hit.workspaceId;
      const row = await db
        .selectFrom('workspaces')
        .select('id')
        .where('public_key', '=', publicKey)
        .executeTakeFirst();
      if (entries.size >= MAX_ENTRIES) entries.clear();
      entries.set(publicKey, { workspaceId: row?.id, expiresAt: now() + TENANT_CACHE_TTL_MS });
      return row?.id;
    },
  };
}

/**
 * X-Service-Visitor -> a visitor of this workspace; anything unknown is ignored (undefined). The
 * lookup is by hash through the unique index, so timing says nothing about stored tokens.
 */
export async function findVisitorId(
  db: Db,
  workspaceId: string,
  token: string | undefined,
): Promise<string | undefined> {
  if (!token || token.length > MAX_KEY_LENGTH) return undefined;
  const row = await db
    .selectFrom('visitors')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('token_hash', '=', hashSecret(token))
    .executeTakeFirst();
  return row?.id;
}

/** The visitor token's kind prefix: `vt_…`. */
export const VISITOR_TOKEN_KIND = 'vt';

/**
 * A new visitor of this workspace's sites: the widget keeps the token in localStorage. The raw
 * token is returned this once and stored nowhere.
 */
export async function registerVisitor(
  db: Db,
  workspaceId: string,
): Promise<{ id: string; token: string }> {
  const token = generateSecret(VISITOR_TOKEN_KIND);
  const row = await db
    .insertInto('visitors')
    .values({
      id: newId('visitor'),
      workspace_id: workspaceId,
      token_hash: hashSecret(token),
      token_prefix: visiblePrefix(token),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, token };
}

/** `service('identify', {label, role, email})` as the widget sends it (each optional). */
export const visitorIdentitySchema = z.object({
  label: z
    .string()
    .trim()
    .max(120, 'At most 120 characters.')
    .optional()
    .meta({ description: 'How the Errors page and tickets name the visitor.', example: 'Ada L.' }),
  role: z.string().trim().max(120, 'At most 120 characters.').optional().meta({ example: 'admin' }),
  email: z
    .union([z.literal(''), z.email('Enter an email address.').max(254)])
    .optional()
    .meta({ example: 'ada@example.com' }),
});
export type VisitorIdentity = z.infer<typeof visitorIdentitySchema>;

/**
 * Records who an identified visitor is (what the host page told the widget): the Errors page then
 * names them by their label, role and email, never by their token. Absent fields are cleared, as
 * the latest identify call is the whole truth.
 */
export async function identifyVisitor(
  db: Db,
  visitorId: string,
  identity: VisitorIdentity,
): Promise<void> {
  await db
    .updateTable('visitors')
    .set({
      name: identity.label || null,
      role: identity.role || null,
      email: identity.email || null,
      last_seen_at: new Date(),
    })
    .where('id', '=', visitorId)
    .execute();
}
