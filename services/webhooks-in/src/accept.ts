import { AppError, hashSecret, isId } from '@ferry/core';
import type { Db } from '@ferry/db';
import {
  MESSAGE_BODY_MAX,
  insertMessageFiles,
  postMessage,
  toRoomName,
  type OriginalPayload,
  type PostMessageInput,
  type PreparedFile,
} from '@ferry/workspace';
import { sql } from 'kysely';
import {
  decodePayload,
  type Avatar,
  type DecodedPayload,
  type PayloadFamily,
} from './decode/index.js';
import {
  IDEMPOTENCY_EXPIRED_BEFORE,
  insertRecords,
  readOriginals,
  recordOf,
  type Original,
} from './idempotency.js';

/**
 * POST /wh/in/<key>: SPEC.md's incoming webhook. The key is the credential; the creator's seat
 * (incoming_webhooks.created_by) is who posts, checked against the database on every request.
 */

export const SENDER_MAX = 120;
export const IDEMPOTENCY_KEY_MAX = 255;

/**
 * Unknown, disabled, deleted and orphaned keys (creator left the room or workspace) all answer this
 * one error, so a caller learns nothing about which keys exist or ever existed.
 */
export function unknownKey(): AppError {
  return new AppError('not_found', 'No incoming webhook has this key.');
}

/** A key that may post right now, with what the post needs. */
export interface LiveKey {
  id: string;
  /** The digest the key was found by: after a rotation the key's row holds another. */
  keyHash: string;
  workspaceId: string;
  roomId: string;
  name: string;
  /** The creator's member seat. */
  createdBy: string;
  creatorName: string;
  /** The GitHub signing secret, sealed (SecretBox); `/github` verifies signatures when set. */
  githubSecretSealed?: string | undefined;
}

/** Raw keys are `whk_` + base64url; anything else cannot be one, and is not looked up at all. */
const KEY_SHAPE = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * Looks the key up by its SHA-256 hash (an index lookup on a digest: the raw key's bytes are never
 * compared, so timing says nothing about them). Which keys may post is written once, as the view
 * `live_incoming_keys` (migration 2026_12_07_0100): the key neither disabled nor deleted, its
 * creator holding an active workspace seat and an active seat in the key's room, which is not a
 * DM. The re-check at commit (liveKeyHashes) reads the same view.
 */
export async function findLiveKey(db: Db, rawKey: string): Promise<LiveKey | undefined> {
  if (!KEY_SHAPE.test(rawKey)) return undefined;
  const keyHash = hashSecret(rawKey);
  const row = await db
    .selectFrom('live_incoming_keys')
    .select([
      'id',
      'workspace_id',
      'room_id',
      'name',
      'created_by',
      'creator_name',
      'github_secret_sealed',
    ])
    .where('key_hash', '=', keyHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    keyHash,
    workspaceId: row.workspace_id,
    roomId: row.room_id,
    name: row.name,
    createdBy: row.created_by,
    creatorName: row.creator_name,
    githubSecretSealed: row.github_secret_sealed ?? undefined,
  };
}

/**
 * Which of `keys` are still live, as their digests (`keyHash`), checked inside the transaction that
 * stores their posts: the live-key cache may not have heard yet that a key was disabled, deleted or
 * rotated (its `keyHash` is no longer the key's) or that its creator left. One call for any number
 * of keys, to `lock_live_incoming_keys` (migration 2026_12_07_0100). It takes `FOR SHARE` on the
 * key rows first, so a rotate, disable or delete that is committing right now waits for this
 * transaction's commit or is seen by it, and no post commits under a key after the change that
 * ended it (SPEC.md: the old key stops working immediately). A creator's seat that ends is seen
 * once committed; its rows are not locked, so leaving never waits on posts. A function, because
 * Postgres keeps its statements' plans: planning the view's five-way join on every group commit
 * was the largest part of Postgres' CPU per post (issue 48).
 */
export async function liveKeyHashes(trx: Db, keys: readonly LiveKey[]): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const { rows } = await sql<{ webhook_id: string; live_hash: string }>`
    select webhook_id, live_hash from lock_live_incoming_keys(${keys.map((key) => key.keyHash)}::text[])`.execute(
    trx,
  );
  // The digest must still name the key row the post looked up, not another one.
  const wanted = new Map(keys.map((key) => [key.keyHash, key.id]));
  return new Set(
    rows.filter((row) => wanted.get(row.live_hash) === row.webhook_id).map((row) => row.live_hash),
  );
}

/**
 * SPEC.md `room`: only rooms the key's creator has joined (a joined room is always one they can
 * see), in the key's workspace, never a DM. The field takes a room id, or a channel name as Slack
 * and Mattermost clients send it (`#general` or `general`; matched the way channel names are
 * written, so `#Support Team` finds `support-team`). Returns the room to post in, or undefined.
 */
export async function roomForPost(
  db: Db,
  key: LiveKey,
  room: string | undefined,
): Promise<string | undefined> {
  if (room === undefined || room === key.roomId) return key.roomId;
  const byId = isId(room, 'room');
  const name = byId ? '' : toRoomName(room);
  if (!byId && !name) return undefined;
  let query = db
    .selectFrom('rooms as r')
    .innerJoin('room_members as rm', (join) =>
      join
        .onRef('rm.room_id', '=', 'r.id')
        .on('rm.member_id', '=', key.createdBy)
        .on('rm.left_at', 'is', null),
    )
    .select('r.id')
    .where('r.workspace_id', '=', key.workspaceId);
  query = byId
    ? query.where('r.id', '=', room).where('r.kind', '!=', 'dm')
    : query.where('r.name', '=', name).where('r.kind', '=', 'channel');
  return (await query.executeTakeFirst())?.id;
}

export interface IncomingPost {
  /** The message's markdown: SPEC.md's `body` as sent, or another family's payload rendered. */
  body: string;
  /** Trimmed; undefined when absent or blank (the fallbacks apply). */
  sender?: string | undefined;
  room?: string | undefined;
  idempotencyKey?: string | undefined;
  /** Which decoder read it (decode/index.ts); undefined reads as SPEC.md's own. */
  family?: PayloadFamily | undefined;
  /** Slack's `icon_emoji`/`icon_url`, Mattermost's `icon_url`, Discord's `avatar_url`. */
  avatar?: Avatar | undefined;
  /** The payload as sent, capped, kept with the message. */
  original?: OriginalPayload | undefined;
  /**
   * Files sent with it (the Discord endpoint's multipart `files[n]`), already within the caps.
   * Such a post is stored alone (storePost), never in a group commit's batch.
   */
  files?: readonly PreparedFile[] | undefined;
  /** `body` only names the files (there was no text): renderers show the files instead. */
  filesOnly?: boolean | undefined;
}

/** The first of the aliases that was sent at all (SPEC.md: `body` wins over `text`, ...). */
function firstPresent(payload: Record<string, unknown>, names: readonly string[]): unknown {
  for (const name of names) {
    const value = payload[name];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

/** The message text's problem, or undefined when it is fine (SPEC.md: 422 missing or over-long). */
function bodyProblem(decoded: DecodedPayload): string | undefined {
  const rendered = decoded.text?.trim() ?? '';
  if (decoded.text === undefined && decoded.family === 'native') {
    return 'Required: the message text, as a string.';
  }
  if (!rendered) {
    return decoded.family === 'native'
      ? 'Required: the message text, as a string.'
      : `Required: the message text. Nothing to show in ${decoded.expected}.`;
  }
  if (rendered.length > MESSAGE_BODY_MAX) {
    const limit = `At most ${MESSAGE_BODY_MAX.toLocaleString('en-US')} characters`;
    return decoded.family === 'native' ? `${limit}.` : `${limit} once rendered.`;
  }
  return undefined;
}

/**
 * Reads the payload (already parsed: request-body.ts) and the Idempotency-Key header into a post,
 * or throws one 422 naming every field that is wrong (`body`, `sender`, `room`,
 * `idempotency_key`). The message text comes from the payload's family decoder (decode/); the
 * rest is SPEC.md's, whatever the family: `sender`/`name`/`username`,
 * `room`/`room_hashid`/`channel`, `idempotency_key`.
 */
export function parseIncomingPost(
  payload: unknown,
  headerKey: string | undefined,
  original?: OriginalPayload,
): IncomingPost {
  const fields: Record<string, string> = {};
  const object =
    payload && typeof payload === 'object' && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : undefined;
  if (!object) {
    throw new AppError(
      'validation_failed',
      'Send a JSON object with the message text in "body", e.g. {"body": "Deploy finished"}.',
      { fields: { body: 'Required.' } },
    );
  }

  const decoded = decodePayload(object);
  const problem = bodyProblem(decoded);
  if (problem) fields.body = problem;

  let sender: string | undefined;
  const rawSender = firstPresent(object, ['sender', 'name', 'username']);
  if (rawSender !== undefined) {
    if (typeof rawSender !== 'string') fields.sender = 'Must be a string.';
    else if (rawSender.trim().length > SENDER_MAX)
      fields.sender = `At most ${SENDER_MAX} characters.`;
    else sender = rawSender.trim() || undefined;
  }

  let room: string | undefined;
  const rawRoom = firstPresent(object, ['room', 'room_hashid', 'channel']);
  if (rawRoom !== undefined) {
    if (typeof rawRoom !== 'string') fields.room = 'Must be a room id or a channel name.';
    else room = rawRoom.trim() || undefined;
  }

  let idempotencyKey: string | undefined;
  const fromHeader = headerKey?.trim();
  const rawIdempotency = fromHeader ? fromHeader : object.idempotency_key;
  if (rawIdempotency !== undefined && rawIdempotency !== null) {
    if (typeof rawIdempotency !== 'string') fields.idempotency_key = 'Must be a string.';
    else if (rawIdempotency.trim().length > IDEMPOTENCY_KEY_MAX)
      fields.idempotency_key = `At most ${IDEMPOTENCY_KEY_MAX} characters.`;
    else idempotencyKey = rawIdempotency.trim() || undefined;
  }

  const problems = Object.entries(fields);
  if (problems.length) {
    const detail = problems.map(([name, problem]) => `${name}: ${problem}`).join(' ');
    throw new AppError('validation_failed', `The webhook post is not valid. ${detail}`, {
      fields,
    });
  }
  return {
    body: decoded.text!.trim(),
    sender,
    room,
    idempotencyKey,
    family: decoded.family,
    avatar: decoded.avatar,
    original,
  };
}

export interface Accepted {
  /** 201 for a new message, 200 for an idempotent replay. */
  status: 201 | 200;
  messageId: string;
  roomId: string;
}

/**
 * Claims the idempotency key in the caller's transaction. The insert goes first: a concurrent
 * duplicate blocks on the primary key until the first transaction commits, then conflicts and
 * reads the first one's message id. Undefined when the claim is ours (post the message); otherwise
 * the original message id. A record older than 24 h is replaced, which claims it for this post.
 */
async function claimIdempotencyKey(
  trx: Db,
  webhookId: string,
  idempotencyKey: string,
): Promise<Original | undefined> {
  const record = { webhookId, idempotencyKey };
  for (let attempt = 0; attempt < 3; attempt++) {
    // message_id is filled in below, before commit; nobody else ever sees this placeholder.
    const claimed = await insertRecords(trx, [{ ...record, messageId: '' }]);
    if (claimed.has(recordOf(record))) return undefined;
    const stale = await trx
      .deleteFrom('incoming_webhook_requests')
      .where('webhook_id', '=', webhookId)
      .where('idempotency_key', '=', idempotencyKey)
      .where('created_at', '<', IDEMPOTENCY_EXPIRED_BEFORE)
      .returning('webhook_id')
      .executeTakeFirst();
    if (stale) continue; // gone: the next insert claims it
    const existing = (await readOriginals(trx, [record])).get(recordOf(record));
    if (existing) return existing;
    // Deleted between our statements (pruned): try the insert again.
  }
  throw new AppError('unavailable', 'The request could not be completed; try again.');
}

/** A valid post with its room resolved: what storing it needs. */
export interface ResolvedPost {
  key: LiveKey;
  roomId: string;
  post: IncomingPost;
}

/** The room the post goes to (SPEC.md `room`), or the 422 naming `room`. */
export async function resolvePost(db: Db, key: LiveKey, post: IncomingPost): Promise<ResolvedPost> {
  const roomId = await roomForPost(db, key, post.room);
  if (!roomId) {
    throw new AppError(
      'validation_failed',
      "The webhook post is not valid. room: Not a room or channel this key's creator has joined.",
      { fields: { room: "Not a room or channel this key's creator has joined." } },
    );
  }
  return { key, roomId, post };
}

/** The message a post becomes; `id` when the caller has already named it (group commit). */
export function webhookMessage({ key, roomId, post }: ResolvedPost, id?: string): PostMessageInput {
  return {
    ...(id === undefined ? {} : { id }),
    roomId,
    workspaceId: key.workspaceId,
    authorKind: 'webhook',
    authorRef: key.id,
    displayName: post.sender ?? (key.name.trim() || key.creatorName),
    body: post.body,
    metadata: {
      webhook_id: key.id,
      ...(post.family && post.family !== 'native' ? { format: post.family } : {}),
      ...(post.avatar?.emoji ? { avatar_emoji: post.avatar.emoji } : {}),
      ...(post.avatar?.url ? { avatar_url: post.avatar.url } : {}),
      ...(post.files?.length ? { files: post.files.map((file) => file.meta) } : {}),
      ...(post.filesOnly ? { files_only: true } : {}),
    },
    ...(post.original ? { originalPayload: post.original } : {}),
  };
}

/**
 * Stores one post: the idempotency record, the message and its `message_created` outbox event in
 * one transaction, so exactly one message exists per idempotency key however many duplicates race.
 * The key is checked again first (liveKeyHashes): a key that died since the lookup answers 404.
 * The single-post path: the group-commit writer (post-writer.ts) falls back to it.
 */
export async function storePost(db: Db, resolved: ResolvedPost): Promise<Accepted> {
  const { key, roomId, post } = resolved;
  return db.transaction().execute(async (trx) => {
    if (!(await liveKeyHashes(trx, [key])).has(key.keyHash)) throw unknownKey();
    if (post.idempotencyKey) {
      const original = await claimIdempotencyKey(trx, key.id, post.idempotencyKey);
      if (original) return { status: 200, ...original };
    }
    const message = await postMessage(trx, webhookMessage(resolved));
    if (post.files?.length) await insertMessageFiles(trx, message, post.files);
    if (post.idempotencyKey) {
      await trx
        .updateTable('incoming_webhook_requests')
        .set({ message_id: message.id })
        .where('webhook_id', '=', key.id)
        .where('idempotency_key', '=', post.idempotencyKey)
        .execute();
    }
    return { status: 201, messageId: message.id, roomId };
  });
}

/** resolvePost then storePost: one post, in its own transaction. */
export async function acceptPost(
  deps: { db: Db },
  key: LiveKey,
  post: IncomingPost,
): Promise<Accepted> {
  return storePost(deps.db, await resolvePost(deps.db, key, post));
}

/** Deletes up to `batch` idempotency records past their 24 h; cheap enough to run now and then. */
export async function pruneIdempotencyRecords(db: Db, batch = 500): Promise<number> {
  const result = await sql`
    delete from incoming_webhook_requests
    where ctid in (
      select ctid from incoming_webhook_requests
      where created_at < ${IDEMPOTENCY_EXPIRED_BEFORE}
      limit ${batch}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
