import { AppError, generateSecret, hashSecret, isId, newId, visiblePrefix } from '@ferry/core';
import type { SecretBox } from '@ferry/core';
import type { Db, IncomingWebhook, OutgoingWebhookState } from '@ferry/db';
import { z } from 'zod';
import { listPage, pageWindow, type ListPage, type PageRequest } from '../common/paging.js';

/**
 * Incoming webhook keys (SPEC.md "Incoming webhook key"). The raw key is the whole credential of
 * `POST /wh/in/<key>`, so it is looked up by its SHA-256 hash only; a sealed copy (SecretBox,
 * AES-256-GCM under APP_SECRET) exists because the key page must be able to reveal it again.
 * `created_by` is the creator's member seat: services/webhooks-in resolves every post against it,
 * so a creator who leaves the room or the workspace silently takes their keys with them.
 */

/** The raw key's readable kind prefix (`whk_…`), like API tokens' `fry_…`. */
export const INCOMING_KEY_KIND = 'whk';
export const INCOMING_KEY_NAME_MAX = 80;

export const incomingKeyNameSchema = z
  .string('Give the key a name.')
  .trim()
  .min(1, 'Give the key a name.')
  .max(INCOMING_KEY_NAME_MAX, `At most ${INCOMING_KEY_NAME_MAX} characters.`);

export const createIncomingKeySchema = z.object({ name: incomingKeyNameSchema });

export type IncomingKeyState = 'enabled' | 'disabled' | 'deleted';

export function incomingKeyState(
  webhook: Pick<IncomingWebhook, 'disabled_at' | 'deleted_at'>,
): IncomingKeyState {
  if (webhook.deleted_at) return 'deleted';
  return webhook.disabled_at ? 'disabled' : 'enabled';
}

function sealedKey(box: SecretBox): {
  rawKey: string;
  hash: string;
  prefix: string;
  sealed: string;
} {
  const rawKey = generateSecret(INCOMING_KEY_KIND);
  return {
    rawKey,
    hash: hashSecret(rawKey),
    prefix: visiblePrefix(rawKey),
    sealed: box.encrypt(rawKey),
  };
}

/**
 * Creates a key, usable at once. The caller has checked that `createdBy` may manage webhooks and
 * has joined the room (a key of a creator who is not in the room would never work). Also used by
 * the seed. Throws a 422 AppError naming `name` for a blank or over-long name.
 */
export async function createIncomingKey(
  db: Db,
  box: SecretBox,
  input: { workspaceId: string; roomId: string; name: string; createdBy: string },
): Promise<{ webhook: IncomingWebhook; rawKey: string }> {
  const parsed = incomingKeyNameSchema.safeParse(input.name);
  if (!parsed.success) {
    const problem = parsed.error.issues[0]?.message ?? 'Give the key a name.';
    throw new AppError('validation_failed', `The key is not valid: ${problem}`, {
      fields: { name: problem },
    });
  }
  const key = sealedKey(box);
  const webhook = await db
    .insertInto('incoming_webhooks')
    .values({
      id: newId('incomingWebhook'),
      workspace_id: input.workspaceId,
      room_id: input.roomId,
      name: parsed.data,
      key_hash: key.hash,
      key_prefix: key.prefix,
      key_sealed: key.sealed,
      created_by: input.createdBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { webhook, rawKey: key.rawKey };
}

export interface IncomingKeyListItem extends IncomingWebhook {
  created_by_name: string;
  state: IncomingKeyState;
}

/** A room's keys, each with its creator's account name (the key page and list show it). */
function keysWithCreator(db: Db, roomId: string) {
  return db
    .selectFrom('incoming_webhooks')
    .innerJoin('members', 'members.id', 'incoming_webhooks.created_by')
    .innerJoin('users', 'users.id', 'members.user_id')
    .selectAll('incoming_webhooks')
    .select('users.name as created_by_name')
    .where('incoming_webhooks.room_id', '=', roomId);
}

/** The room's keys that are not deleted, newest first, with the creator's account name: a page. */
export async function listIncomingKeys(
  db: Db,
  roomId: string,
  request: PageRequest = {},
): Promise<ListPage<IncomingKeyListItem>> {
  const { limit, offset } = pageWindow(request);
  const [rows, counted] = await Promise.all([
    keysWithCreator(db, roomId)
      .where('incoming_webhooks.deleted_at', 'is', null)
      .orderBy('incoming_webhooks.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('incoming_webhooks')
      .where('room_id', '=', roomId)
      .where('deleted_at', 'is', null)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  const items = rows.map((row) => ({ ...row, state: incomingKeyState(row) }));
  return listPage(items, Number(counted.n), request);
}

/**
 * A key of this room with its creator's name, deleted keys included only when asked (a message's
 * badge may still point at one). Junk ids and other rooms' keys are both undefined.
 */
export async function findIncomingKey(
  db: Db,
  roomId: string,
  keyId: string,
  options: { includeDeleted?: boolean } = {},
): Promise<IncomingKeyListItem | undefined> {
  if (!isId(keyId, 'incomingWebhook')) return undefined;
  let query = keysWithCreator(db, roomId).where('incoming_webhooks.id', '=', keyId);
  if (!options.includeDeleted) query = query.where('incoming_webhooks.deleted_at', 'is', null);
  const row = await query.executeTakeFirst();
  return row ? { ...row, state: incomingKeyState(row) } : undefined;
}

/**
 * The rooms that these keys belong to (deleted keys left out), keyed by key id. A key may post
 * to another room than its own (`channel` in the payload), so a webhook message's badge must link
 * to the key's page under the key's room, not the room the message is in.
 */
export async function incomingKeyRooms(
  db: Db,
  workspaceId: string,
  keyIds: readonly string[],
): Promise<Map<string, string>> {
  const ids = [...new Set(keyIds)].filter((id) => isId(id, 'incomingWebhook'));
  if (!ids.length) return new Map();
  const rows = await db
    .selectFrom('incoming_webhooks')
    .select(['id', 'room_id'])
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute();
  return new Map(rows.map((row) => [row.id, row.room_id]));
}

/** The raw key, decrypted for the key page's Reveal. */
export function revealIncomingKey(
  box: SecretBox,
  webhook: Pick<IncomingWebhook, 'key_sealed'>,
): string {
  return box.decrypt(webhook.key_sealed);
}

async function updateLiveKey(
  db: Db,
  roomId: string,
  keyId: string,
  values: Partial<
    Pick<IncomingWebhook, 'key_hash' | 'key_prefix' | 'key_sealed' | 'github_secret_sealed'>
  > & {
    rotated_at?: Date;
    disabled_at?: Date | null;
    deleted_at?: Date;
    github_secret_set_at?: Date | null;
  },
): Promise<IncomingWebhook> {
  if (!isId(keyId, 'incomingWebhook')) throw new AppError('not_found', 'No such webhook key.');
  const row = await db
    .updateTable('incoming_webhooks')
    .set(values)
    .where('room_id', '=', roomId)
    .where('id', '=', keyId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new AppError('not_found', 'No such webhook key.');
  return row;
}

/**
 * A new key for the same webhook (same id, name, messages' badges). The old hash is overwritten in
 * the same statement, so the old key answers 404 from the very next request.
 */
export async function rotateIncomingKey(
  db: Db,
  box: SecretBox,
  roomId: string,
  keyId: string,
): Promise<{ webhook: IncomingWebhook; rawKey: string }> {
  const key = sealedKey(box);
  const webhook = await updateLiveKey(db, roomId, keyId, {
    key_hash: key.hash,
    key_prefix: key.prefix,
    key_sealed: key.sealed,
    rotated_at: new Date(),
  });
  return { webhook, rawKey: key.rawKey };
}

/** Disable (posts answer 404) or enable again. */
export function setIncomingKeyEnabled(
  db: Db,
  roomId: string,
  keyId: string,
  enabled: boolean,
): Promise<IncomingWebhook> {
  return updateLiveKey(db, roomId, keyId, { disabled_at: enabled ? null : new Date() });
}

/**
 * Soft delete: the row stays so old messages' badges and idempotency records keep their target,
 * but the key never works again and leaves the list.
 */
export function deleteIncomingKey(db: Db, roomId: string, keyId: string): Promise<IncomingWebhook> {
  return updateLiveKey(db, roomId, keyId, { deleted_at: new Date() });
}

/** GitHub takes any secret; this bounds what we store and what a form may post. */
export const GITHUB_SECRET_MAX = 256;

/**
 * The GitHub signing secret as typed into GitHub's form: GitHub signs with it exactly as given, so
 * spaces at either end (a careless paste) are refused rather than silently kept or dropped.
 */
export const githubSecretSchema = z
  .string('Type the secret you give GitHub.')
  .min(1, 'Type the secret you give GitHub.')
  .max(GITHUB_SECRET_MAX, `At most ${GITHUB_SECRET_MAX} characters.`)
  .refine((value) => value.trim() === value, {
    message:
      'Remove the spaces at the start or end: GitHub signs with the secret exactly as typed.',
  });

/**
 * Sets (a string) or removes (null) the key's GitHub signing secret: with one set,
 * `/wh/in/<key>/github` refuses deliveries whose `X-Hub-Signature-256` does not match. Sealed
 * like the key (the HMAC needs it in clear). The caller holds `webhooks.manage` for the room.
 * Throws a 422 naming `github_secret` for a secret GitHub would not sign with as typed.
 */
export async function setIncomingKeyGithubSecret(
  db: Db,
  box: SecretBox,
  roomId: string,
  keyId: string,
  secret: string | null,
): Promise<IncomingWebhook> {
  if (secret === null) {
    return updateLiveKey(db, roomId, keyId, {
      github_secret_sealed: null,
      github_secret_set_at: null,
    });
  }
  const parsed = githubSecretSchema.safeParse(secret);
  if (!parsed.success) {
    const problem = parsed.error.issues[0]?.message ?? 'Type the secret you give GitHub.';
    throw new AppError('validation_failed', `The secret is not valid: ${problem}`, {
      fields: { github_secret: problem },
    });
  }
  return updateLiveKey(db, roomId, keyId, {
    github_secret_sealed: box.encrypt(parsed.data),
    github_secret_set_at: new Date(),
  });
}

export interface OutgoingHookListItem {
  id: string;
  target_url: string;
  state: OutgoingWebhookState;
  consecutive_failures: number;
  created_at: Date;
}

/**
 * The room's outgoing hooks for the Webhooks tab's list (SPEC.md: state and consecutive failures
 * are shown there). Read-only here; creating and managing hooks is domain/outgoing-hooks.ts.
 */
export async function listRoomOutgoingHooks(
  db: Db,
  roomId: string,
  request: PageRequest = {},
): Promise<ListPage<OutgoingHookListItem>> {
  const { limit, offset } = pageWindow(request);
  const hooks = db.selectFrom('outgoing_webhooks').where('room_id', '=', roomId);
  const [items, counted] = await Promise.all([
    hooks
      .select(['id', 'target_url', 'state', 'consecutive_failures', 'created_at'])
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    hooks.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return listPage(items, Number(counted.n), request);
}
