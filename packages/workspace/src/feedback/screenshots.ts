import { AppError } from '@ferry/core';
import type { Db, FeedbackScreenshot, ScreenshotType } from '@ferry/db';

/**
 * A widget ticket's screenshot (issue 28): the visitor's capture of the page, redacted in their
 * browser before it is sent. Checked here by its bytes, never by what the client claims: PNG,
 * JPEG or WebP, 2 MB at most, with readable dimensions. Stored beside the ticket, served only to
 * members who can read the ticket, and never part of what a coding agent or GitHub is told.
 */

export const SCREENSHOT_MAX_BYTES = 2 * 1024 * 1024;
/** What a JSON body carrying a screenshot may weigh: base64 of the cap, plus the ticket's fields. */
export const SCREENSHOT_BODY_LIMIT = Math.ceil((SCREENSHOT_MAX_BYTES * 4) / 3) + 128 * 1024;

export const SCREENSHOT_TOO_LARGE =
  'The screenshot is larger than 2 MB: capture a smaller area or send without it.';
const WRONG_TYPE = 'The screenshot must be a PNG, JPEG or WebP image.';
const NOT_DATA_URL =
  'Send the screenshot as a base64 data URL (data:image/png;base64,...), or leave it out.';
const DAMAGED = 'The screenshot could not be read as an image: it is damaged or incomplete.';

export interface CheckedScreenshot {
  contentType: ScreenshotType;
  width: number;
  height: number;
  bytes: Buffer;
}

export type ScreenshotMeta = Pick<
  FeedbackScreenshot,
  'content_type' | 'width' | 'height' | 'byte_size' | 'created_at'
>;

const DATA_URL = /^data:([a-z0-9.+/-]*)(;[a-z0-9=._-]+)*;base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function invalid(message: string): AppError {
  return new AppError('validation_failed', message, { fields: { screenshot: message } });
}

/** The image type its first bytes prove, or undefined. */
export function sniffImageType(bytes: Uint8Array): ScreenshotType | undefined {
  const at = (i: number, ...values: number[]) => values.every((v, k) => bytes[i + k] === v);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  // RIFF....WEBP
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return undefined;
}

/** Width and height from the image's header, or undefined when the header is not there. */
export function imageSize(
  type: ScreenshotType,
  b: Buffer,
): { width: number; height: number } | undefined {
  if (type === 'image/png') {
    // Signature, then the IHDR chunk: length (4), "IHDR", width (4), height (4).
    if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') return undefined;
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  if (type === 'image/webp') {
    if (b.length < 30) return undefined;
    const chunk = b.toString('latin1', 12, 16);
    if (chunk === 'VP8 ') {
      return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    }
    if (chunk === 'VP8L') {
      const bits = b.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    if (chunk === 'VP8X') {
      return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
    }
    return undefined;
  }
  // JPEG: walk the markers to the first start-of-frame (SOF0..SOF15 but DHT, JPG and DAC).
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1] ?? 0;
    if (marker === 0xff) {
      i += 1;
      continue;
    }
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
    }
    i += 2 + b.readUInt16BE(i + 2);
  }
  return undefined;
}

/** Checks raw image bytes: 413 over 2 MB, 415 unless PNG/JPEG/WebP, 422 when unreadable. */
export function checkScreenshotBytes(bytes: Buffer): CheckedScreenshot {
  if (bytes.length > SCREENSHOT_MAX_BYTES)
    throw new AppError('payload_too_large', SCREENSHOT_TOO_LARGE);
  if (bytes.length === 0) throw invalid(DAMAGED);
  const contentType = sniffImageType(bytes);
  if (!contentType) throw new AppError('unsupported_media_type', WRONG_TYPE);
  const size = imageSize(contentType, bytes);
  if (!size || size.width < 1 || size.height < 1) throw invalid(DAMAGED);
  return { contentType, ...size, bytes };
}

/**
 * The `screenshot` field of a widget feedback body: absent/null means none; otherwise a base64
 * data URL whose decoded bytes pass checkScreenshotBytes (the declared type is ignored).
 */
export function parseScreenshotField(value: unknown): CheckedScreenshot | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalid(NOT_DATA_URL);
  const header = DATA_URL.exec(value.slice(0, 200));
  if (!header) throw invalid(NOT_DATA_URL);
  const data = value.slice(header[0].length);
  // Cheap size check before decoding: base64 is 4 characters per 3 bytes.
  if (Math.floor((data.length * 3) / 4) - 2 > SCREENSHOT_MAX_BYTES) {
    throw new AppError('payload_too_large', SCREENSHOT_TOO_LARGE);
  }
  if (!BASE64.test(data)) throw invalid(NOT_DATA_URL);
  return checkScreenshotBytes(Buffer.from(data, 'base64'));
}

/** Stores a ticket's screenshot (inside fileFeedback's transaction). */
export async function insertScreenshot(
  trx: Db,
  feedback: { id: string; workspace_id: string },
  shot: CheckedScreenshot,
): Promise<void> {
  await trx
    .insertInto('feedback_screenshots')
    .values({
      feedback_id: feedback.id,
      workspace_id: feedback.workspace_id,
      content_type: shot.contentType,
      width: shot.width,
      height: shot.height,
      byte_size: shot.bytes.length,
      bytes: shot.bytes,
    })
    .execute();
}

/** The screenshot's size and type (no bytes), for the ticket page; undefined when it has none. */
export async function screenshotMeta(
  db: Db,
  workspaceId: string,
  feedbackId: string,
): Promise<ScreenshotMeta | undefined> {
  return db
    .selectFrom('feedback_screenshots')
    .select(['content_type', 'width', 'height', 'byte_size', 'created_at'])
    .where('feedback_id', '=', feedbackId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/** The screenshot with its bytes, of a ticket in this workspace (callers checked the seat). */
export async function findScreenshot(
  db: Db,
  workspaceId: string,
  feedbackId: string,
): Promise<FeedbackScreenshot | undefined> {
  return db
    .selectFrom('feedback_screenshots')
    .selectAll()
    .where('feedback_id', '=', feedbackId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}
