import { AppError, isId, newId } from '@ferry/core';
import type { Db, MessageFile, MessageFileType } from '@ferry/db';
import { z } from 'zod';
import { usersWhoCanOpen } from '../rooms/rooms.js';

/**
 * Files sent with an incoming webhook's message (issue 44, Discord's `files[n]`): the bytes in
 * message_files, removed with the message; the list (id, name, size, type) in the message's
 * metadata, so every renderer of a message shows them without another read. Images whose magic
 * bytes prove PNG, JPEG, GIF or WebP are shown inline; everything else is a download link. The
 * sender's declared type is never trusted, so nothing stored is ever served as HTML or SVG.
 */

/** Discord's own caps for a webhook: 8 MB a file, 25 MB a message, 10 files. */
export const MESSAGE_FILE_MAX = 8 * 1024 * 1024;
export const MESSAGE_FILES_TOTAL_MAX = 25 * 1024 * 1024;
export const MESSAGE_FILES_MAX = 10;
export const FILE_NAME_MAX = 200;

/** Where web serves a file (services/web features/rooms/file-routes.ts), to its room's readers. */
export function messageFilePath(fileId: string): string {
  return `/files/${fileId}`;
}

/** A file as it arrived: the sender's name for it and its bytes. */
export interface IncomingFile {
  name: string;
  bytes: Buffer;
}

/** What a message's metadata says of each of its files (`metadata.files`). */
export const messageFileMetaSchema = z.object({
  id: z.string().refine((id) => isId(id, 'messageFile')),
  name: z.string(),
  size: z.number().int().nonnegative(),
  type: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/octet-stream']),
});
export type MessageFileMeta = z.infer<typeof messageFileMetaSchema>;

/** A file ready to insert: its metadata entry and its bytes. */
export interface PreparedFile {
  meta: MessageFileMeta;
  bytes: Buffer;
}

/** The files a message's metadata lists; anything malformed is left out, never shown. */
export function messageFilesOf(metadata: unknown): MessageFileMeta[] {
  const files = (metadata as { files?: unknown } | null)?.files;
  if (!Array.isArray(files)) return [];
  return files.flatMap((file) => {
    const parsed = messageFileMetaSchema.safeParse(file);
    return parsed.success ? [parsed.data] : [];
  });
}

/** True when the file is an image its bytes proved, shown inline. */
export function isInlineImage(type: MessageFileType): boolean {
  return type !== 'application/octet-stream';
}

/** The image type the bytes' signature proves, or application/octet-stream. */
export function sniffFileType(bytes: Buffer): MessageFileType {
  const starts = (signature: number[], at = 0) =>
    bytes.length >= at + signature.length && signature.every((b, i) => bytes[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39)) {
    return 'image/gif';
  }
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return 'application/octet-stream';
}

/**
 * The sender's file name made safe to store and show: no path, no control or bidirectional
 * override characters (which can make `exe.txt` read as `txt.exe`), at most FILE_NAME_MAX
 * characters; `file` when nothing is left. Still escaped wherever it is shown.
 */
export function cleanFileName(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  const clean = base
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .trim();
  const cut = [...clean].slice(0, FILE_NAME_MAX).join('');
  return cut && cut !== '.' && cut !== '..' ? cut : 'file';
}

const megabytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/**
 * The files with their ids and proved types, after the caps: at most MESSAGE_FILES_MAX files of
 * MESSAGE_FILE_MAX each, MESSAGE_FILES_TOTAL_MAX with the message's files already kept
 * (`keptBytes`). Throws a 413 AppError naming the cap otherwise.
 */
export function prepareFiles(
  files: readonly IncomingFile[],
  kept: { count: number; bytes: number } = { count: 0, bytes: 0 },
): PreparedFile[] {
  if (files.length + kept.count > MESSAGE_FILES_MAX) {
    throw new AppError(
      'payload_too_large',
      `A message holds at most ${MESSAGE_FILES_MAX} files; this one would have ${files.length + kept.count}.`,
    );
  }
  let total = kept.bytes;
  return files.map((file) => {
    const name = cleanFileName(file.name);
    if (file.bytes.length > MESSAGE_FILE_MAX) {
      throw new AppError(
        'payload_too_large',
        `File "${name}" is larger than ${megabytes(MESSAGE_FILE_MAX)}.`,
      );
    }
    total += file.bytes.length;
    if (total > MESSAGE_FILES_TOTAL_MAX) {
      throw new AppError(
        'payload_too_large',
        `A message's files come to at most ${megabytes(MESSAGE_FILES_TOTAL_MAX)} together.`,
      );
    }
    return {
      meta: {
        id: newId('messageFile'),
        name,
        size: file.bytes.length,
        type: sniffFileType(file.bytes),
      },
      bytes: file.bytes,
    };
  });
}

/**
 * A message's body when it has files: the rendered text, or (files alone) their names, so
 * previews, notifications and search have words; `filesOnly` tells renderers to show the files in
 * its place. Throws a 422 naming `body` when there is neither text nor a file.
 */
export function bodyWithFiles(
  text: string,
  files: readonly MessageFileMeta[],
): { body: string; filesOnly: boolean } {
  if (text.trim()) return { body: text.trim(), filesOnly: false };
  if (!files.length) {
    throw new AppError('validation_failed', 'The message is not valid: Write a message.', {
      fields: { body: 'Write a message.' },
    });
  }
  return { body: files.map((file) => `📎 ${file.name}`).join('\n'), filesOnly: true };
}

/** Inserts prepared files for a stored message, in the caller's transaction. */
export async function insertMessageFiles(
  trx: Db,
  message: { id: string; workspace_id: string },
  files: readonly PreparedFile[],
): Promise<void> {
  if (!files.length) return;
  await trx
    .insertInto('message_files')
    .values(
      files.map((file) => ({
        id: file.meta.id,
        message_id: message.id,
        workspace_id: message.workspace_id,
        name: file.meta.name,
        content_type: file.meta.type,
        byte_size: file.meta.size,
        bytes: file.bytes,
      })),
    )
    .execute();
}

/**
 * A file for this user, if they may open its message's room right now (the room page's own rule,
 * usersWhoCanOpen); undefined for an unknown file and for a room they cannot open alike.
 */
export async function findReadableFile(
  db: Db,
  userId: string,
  fileId: string,
): Promise<MessageFile | undefined> {
  if (!isId(fileId, 'messageFile')) return undefined;
  const file = await db
    .selectFrom('message_files as f')
    .innerJoin('messages as m', 'm.id', 'f.message_id')
    .selectAll('f')
    .select('m.room_id')
    .where('f.id', '=', fileId)
    .executeTakeFirst();
  if (!file) return undefined;
  const allowed = await usersWhoCanOpen(db, file.room_id, [userId]);
  if (!allowed.has(userId)) return undefined;
  const { room_id: _room, ...row } = file;
  return row;
}
