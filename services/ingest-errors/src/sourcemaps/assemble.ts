import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AppError, newId } from '@ferry/core';
import type { ArtifactKind, Db } from '@ferry/db';
import { quotaUsed, storedText, UPLOAD_LIMITS } from './limits.js';
import { unzipBundle, type UnzippedFile } from './unzip.js';
import type { AssembleResponse } from './api-schemas.js';

/**
 * POST artifactbundle/assemble (sentry-cli sourcemaps upload): the bundle named by its SHA-1 and
 * its chunks' SHA-1s. Answered as Sentry does: `not_found` with the chunks still missing (which
 * sentry-cli then uploads), `ok` once the bundle is stored. Assembled at once, in the request:
 * sentry-cli waits for this answer, so a bad bundle is refused there, with its reason, rather than
 * failing later where nobody sees it.
 */

const sha1Hex = z.string().regex(/^[0-9a-f]{40}$/, 'a SHA-1 in lower-case hex');

export const assembleRequestSchema = z.object({
  checksum: sha1Hex,
  chunks: z.array(sha1Hex).min(1).max(UPLOAD_LIMITS.maxChunks),
  projects: z.array(z.string().max(200)).max(100).optional(),
  version: storedText().min(1).max(200).optional(),
  dist: storedText().min(1).max(64).optional(),
});

export type AssembleRequest = z.infer<typeof assembleRequestSchema>;

/** sentry-cli's manifest.json: what each file of the zip is, and the URL it was served at. */
const manifestSchema = z.object({
  files: z.record(
    storedText(),
    z.object({
      type: z.string(),
      url: storedText().min(1).max(2_000),
      headers: z.record(z.string(), storedText()).optional(),
    }),
  ),
  release: storedText().max(200).optional(),
  dist: storedText().max(64).optional(),
});

const KINDS: readonly string[] = ['minified_source', 'source_map'] satisfies ArtifactKind[];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A debug ID as a UUID in lower case (sentry-cli writes them so; anything else is no ID). */
export function normalDebugId(value: string | undefined): string | null {
  const lower = value?.trim().toLowerCase();
  return lower && UUID.test(lower) ? lower : null;
}

/** A header by name, whatever its case. */
function header(headers: Record<string, string> | undefined, name: string): string | undefined {
  return Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];
}

function readManifest(files: readonly UnzippedFile[]): z.infer<typeof manifestSchema> {
  const manifest = files.find((file) => file.path === 'manifest.json');
  if (!manifest) {
    throw new AppError('bad_request', 'The bundle has no manifest.json: build it with sentry-cli.');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(manifest.data.toString('utf8'));
  } catch {
    throw new AppError('bad_request', "The bundle's manifest.json is not valid JSON.");
  }
  const result = manifestSchema.safeParse(parsed);
  if (!result.success) {
    // Where in the manifest, as the request bodies' errors say it (routes.ts, parsed).
    const issue = result.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new AppError(
      'bad_request',
      `The bundle's manifest.json is not an artifact bundle manifest: ${where}${issue?.message ?? 'unexpected shape'}.`,
    );
  }
  return result.data;
}

export async function assembleBundle(
  db: Db,
  workspaceId: string,
  request: AssembleRequest,
  quotaMb: number,
): Promise<AssembleResponse> {
  const done: AssembleResponse = { state: 'ok', missingChunks: [], detail: null };
  const known = await db
    .selectFrom('artifact_bundles')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('checksum', '=', request.checksum)
    .executeTakeFirst();
  if (known) return done;

  const unique = [...new Set(request.chunks)];
  const stored = await db
    .selectFrom('upload_chunks')
    .select(['checksum', 'data'])
    .where('workspace_id', '=', workspaceId)
    .where('checksum', 'in', unique)
    .execute();
  const byChecksum = new Map(stored.map((chunk) => [chunk.checksum, chunk.data]));
  const missing = unique.filter((checksum) => !byChecksum.has(checksum));
  if (missing.length > 0) return { state: 'not_found', missingChunks: missing, detail: null };

  const zip = Buffer.concat(request.chunks.map((checksum) => byChecksum.get(checksum)!));
  const actual = createHash('sha1').update(zip).digest('hex');
  if (actual !== request.checksum) {
    throw new AppError(
      'bad_request',
      `The chunks do not add up to the bundle's checksum: their SHA-1 is ${actual}, not ${request.checksum}.`,
    );
  }
  // The chunks of this bundle count already; what it unpacks to must fit beside the rest.
  const room = quotaMb * 1024 * 1024 - (await quotaUsed(db, workspaceId)) + zip.length;
  const files = await unzipBundle(zip, Math.max(0, room));
  const manifest = readManifest(files);
  const contents = new Map(files.map((file) => [file.path, file.data]));
  const artifacts = Object.entries(manifest.files).flatMap(([path, entry]) => {
    const content = contents.get(path);
    if (!content || !KINDS.includes(entry.type)) return [];
    return [
      {
        path,
        kind: entry.type as ArtifactKind,
        url: entry.url,
        debug_id: normalDebugId(header(entry.headers, 'debug-id')),
        sourcemap: header(entry.headers, 'sourcemap')?.slice(0, 2_000) ?? null,
        content,
      },
    ];
  });
  const size = artifacts.reduce((sum, artifact) => sum + artifact.content.length, 0);

  await db.transaction().execute(async (tx) => {
    const bundleId = newId('artifactBundle');
    const inserted = await tx
      .insertInto('artifact_bundles')
      .values({
        id: bundleId,
        workspace_id: workspaceId,
        checksum: request.checksum,
        release: request.version ?? manifest.release ?? null,
        dist: request.dist ?? manifest.dist ?? null,
        size_bytes: size,
        file_count: artifacts.length,
      })
      .onConflict((oc) => oc.columns(['workspace_id', 'checksum']).doNothing())
      .returning('id')
      .executeTakeFirst();
    // Assembled by a concurrent request meanwhile: that one stored it.
    if (!inserted) return;
    for (const artifact of artifacts) {
      await tx
        .insertInto('artifact_files')
        .values({ bundle_id: bundleId, workspace_id: workspaceId, ...artifact })
        .execute();
    }
    await tx
      .deleteFrom('upload_chunks')
      .where('workspace_id', '=', workspaceId)
      .where('checksum', 'in', unique)
      .execute();
  });
  return done;
}
