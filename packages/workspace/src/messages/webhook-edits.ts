import { AppError, isId } from '@ferry/core';
import type { Db, Message } from '@ferry/db';
import { writeEvents } from '@ferry/queues';
import {
  bodyWithFiles,
  insertMessageFiles,
  messageFilesOf,
  prepareFiles,
  type IncomingFile,
  type MessageFileMeta,
} from './files.js';
import { messageBodySchema, type OriginalPayload } from './messages.js';

/**
 * An incoming webhook key's own messages, read, edited and deleted by the key (issue 44: Discord's
 * Edit and Delete Webhook Message). The rule lives here, in every query: only a message the key
 * posted (author_kind 'webhook', author_ref the key's id, in the key's workspace). Another key's
 * message, a member's and an unknown id are all the same `undefined`, so a key learns nothing of
 * messages that are not its own. Each change writes a `message_changed` outbox event in its own
 * transaction, which the relay announces to the pages showing the room.
 */

export interface WebhookMessageRef {
  webhookId: string;
  workspaceId: string;
  messageId: string;
}

function ownMessages(db: Db, ref: WebhookMessageRef) {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('id', '=', ref.messageId)
    .where('workspace_id', '=', ref.workspaceId)
    .where('author_kind', '=', 'webhook')
    .where('author_ref', '=', ref.webhookId);
}

/** The key's message with its stored payload, or undefined (not the key's, or no such message). */
export async function findWebhookMessage(
  db: Db,
  ref: WebhookMessageRef,
): Promise<{ message: Message; payload: OriginalPayload | undefined } | undefined> {
  if (!isId(ref.messageId, 'message')) return undefined;
  const message = await ownMessages(db, ref).executeTakeFirst();
  if (!message) return undefined;
  const payload = await db
    .selectFrom('message_payloads')
    .select(['format', 'payload', 'truncated'])
    .where('message_id', '=', message.id)
    .executeTakeFirst();
  return { message, payload };
}

export interface WebhookMessageEdit {
  /** The message's new text, rendered (may be empty when it has files). */
  text: string;
  /** What it is now rendered from, kept as its original payload. */
  payload: OriginalPayload;
  /** The files to keep, by id; undefined keeps them all. Ids not on the message are ignored. */
  keepFileIds?: readonly string[] | undefined;
  /** Files to add after the kept ones (the caps count the kept ones too). */
  newFiles?: readonly IncomingFile[];
}

/**
 * Edits the key's message: text, payload and files in one transaction (the row locked, so two
 * edits of one message apply one after the other), marked edited. Undefined when it is not the
 * key's message. Throws 413 past the file caps, 422 for an empty or over-long result.
 */
export async function editWebhookMessage(
  db: Db,
  ref: WebhookMessageRef,
  edit: WebhookMessageEdit,
): Promise<{ message: Message; files: MessageFileMeta[] } | undefined> {
  if (!isId(ref.messageId, 'message')) return undefined;
  return db.transaction().execute(async (trx) => {
    const message = await ownMessages(trx, ref).forUpdate().executeTakeFirst();
    if (!message) return undefined;
    const current = messageFilesOf(message.metadata);
    const keep = edit.keepFileIds ? new Set(edit.keepFileIds) : undefined;
    const kept = keep ? current.filter((file) => keep.has(file.id)) : current;
    const removed = current.filter((file) => !kept.includes(file));
    const added = prepareFiles(edit.newFiles ?? [], {
      count: kept.length,
      bytes: kept.reduce((sum, file) => sum + file.size, 0),
    });
    const files = [...kept, ...added.map((file) => file.meta)];
    const { body, filesOnly } = bodyWithFiles(edit.text, files);
    const parsed = messageBodySchema.safeParse(body);
    if (!parsed.success) {
      const problem = parsed.error.issues[0]?.message ?? 'Write a message.';
      throw new AppError('validation_failed', `The message is not valid: ${problem}`, {
        fields: { body: problem },
      });
    }
    const { files: _files, files_only: _filesOnly, ...rest } = message.metadata;
    const metadata = {
      ...rest,
      ...(files.length ? { files } : {}),
      ...(filesOnly ? { files_only: true } : {}),
      edited_at: new Date().toISOString(),
    };
    const updated = await trx
      .updateTable('messages')
      .set({ body: parsed.data, metadata: JSON.stringify(metadata) })
      .where('id', '=', message.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('message_payloads')
      .values({ message_id: message.id, ...edit.payload })
      .onConflict((oc) =>
        oc.column('message_id').doUpdateSet({
          format: edit.payload.format,
          payload: edit.payload.payload,
          truncated: edit.payload.truncated,
        }),
      )
      .execute();
    if (removed.length) {
      await trx
        .deleteFrom('message_files')
        .where('message_id', '=', message.id)
        .where(
          'id',
          'in',
          removed.map((file) => file.id),
        )
        .execute();
    }
    await insertMessageFiles(trx, message, added);
    await writeEvents(trx, [
      {
        type: 'message_changed',
        payload: {
          messageId: message.id,
          roomId: message.room_id,
          workspaceId: message.workspace_id,
          change: 'updated',
        },
      },
    ]);
    return { message: updated, files };
  });
}

/**
 * Deletes the key's message (its payload, files and mentions go with it: the foreign keys
 * cascade). False when it is not the key's message.
 */
export async function deleteWebhookMessage(db: Db, ref: WebhookMessageRef): Promise<boolean> {
  if (!isId(ref.messageId, 'message')) return false;
  return db.transaction().execute(async (trx) => {
    const deleted = await trx
      .deleteFrom('messages')
      .where('id', '=', ref.messageId)
      .where('workspace_id', '=', ref.workspaceId)
      .where('author_kind', '=', 'webhook')
      .where('author_ref', '=', ref.webhookId)
      .returning(['id', 'room_id', 'workspace_id'])
      .executeTakeFirst();
    if (!deleted) return false;
    await writeEvents(trx, [
      {
        type: 'message_changed',
        payload: {
          messageId: deleted.id,
          roomId: deleted.room_id,
          workspaceId: deleted.workspace_id,
          change: 'deleted',
        },
      },
    ]);
    return true;
  });
}
