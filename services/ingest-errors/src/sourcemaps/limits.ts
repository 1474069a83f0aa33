import { sql } from 'kysely';
import { z } from 'zod';
import { AppError } from '@ferry/core';
import type { Db } from '@ferry/db';

/**
 * What sentry-cli is told it may send (GET chunk-upload), and what is enforced whatever it sends.
 * sentry-cli splits a bundle into `chunkSize` pieces named by their SHA-1 and posts up to
 * `chunksPerRequest` of them (at most `maxRequestSize` bytes) per request, gzip'd when asked.
 */
export const UPLOAD_LIMITS = {
  chunkSize: 8 * 1024 * 1024,
  chunksPerRequest: 16,
  maxRequestSize: 32 * 1024 * 1024,
  /** One file of a bundle, unzipped: past it the bundle is refused (a 100 MB map, a zip bomb). */
  maxFileBytes: 40 * 1024 * 1024,
  /** Files in one bundle. */
  maxFiles: 10_000,
  /** One bundle's zip: the chunks an assemble may name. */
  maxChunks: 64,
} as const;

const MB = 1024 * 1024;

/**
 * A string that is stored in a PostgreSQL `text` column: it cannot hold U+0000 (the insert fails
 * with 22021 "invalid byte sequence for encoding UTF8: 0x00", and so would the request, with a
 * 500). sentry-cli never sends one; a hand-made request or manifest may, and gets a 400.
 */
export const storedText = () =>
  z.string().regex(/^[^\0]*$/, 'text without NUL characters (\\u0000)');

export const megabytes = (bytes: number): string => `${(bytes / MB).toFixed(1)} MB`;

/** A workspace's stored bundles and pending chunks, in bytes: what its quota counts. */
export async function quotaUsed(db: Db, workspaceId: string): Promise<number> {
  const { rows } = await sql<{ used: string }>`
    select coalesce((select sum(size_bytes) from artifact_bundles where workspace_id = ${workspaceId}), 0)
         + coalesce((select sum(octet_length(data)) from upload_chunks where workspace_id = ${workspaceId}), 0)
      as used`.execute(db);
  return Number(rows[0]?.used ?? 0);
}

/** 413 when `adding` bytes would take the workspace past its quota. */
export async function checkQuota(
  db: Db,
  workspaceId: string,
  adding: number,
  quotaMb: number,
): Promise<void> {
  const used = await quotaUsed(db, workspaceId);
  if (used + adding <= quotaMb * MB) return;
  throw new AppError(
    'payload_too_large',
    `This upload would take the workspace's source maps past their ${quotaMb} MB quota (${megabytes(used)} in use, ${megabytes(adding)} more sent). Delete old releases' bundles, or ask your operator to raise SOURCE_MAP_QUOTA_MB.`,
  );
}
