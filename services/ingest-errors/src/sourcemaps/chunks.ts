import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { Request } from 'express';
import busboy from 'busboy';
import { AppError } from '@ferry/core';
import type { Db } from '@ferry/db';
import { checkQuota, megabytes, UPLOAD_LIMITS } from './limits.js';

/**
 * sentry-cli's chunk POST (multipart/form-data): one part per chunk, named `file` (raw) or
 * `file_gzip` (a gzip stream of the chunk), its filename the chunk's SHA-1. Each chunk is checked
 * against its name and kept until the assemble that names it.
 */

export interface Chunk {
  checksum: string;
  data: Buffer;
}

const SHA1 = /^[0-9a-f]{40}$/;

const sha1 = (data: Buffer): string => createHash('sha1').update(data).digest('hex');

/** One part's bytes as the chunk they stand for: gunzipped when sent gzip'd, never past a chunk. */
function chunkOf(field: string, filename: string, sent: Buffer): Chunk {
  if (!SHA1.test(filename)) {
    throw new AppError(
      'bad_request',
      `A chunk's filename must be its SHA-1 (40 lower-case hex digits); got "${filename.slice(0, 60)}".`,
    );
  }
  let data = sent;
  if (field === 'file_gzip') {
    try {
      data = gunzipSync(sent, { maxOutputLength: UPLOAD_LIMITS.chunkSize });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new AppError(
          'payload_too_large',
          `Chunk ${filename} unpacks past the chunk size (${megabytes(UPLOAD_LIMITS.chunkSize)}).`,
        );
      }
      throw new AppError('bad_request', `Chunk ${filename} is not a valid gzip stream.`);
    }
  }
  if (sha1(data) !== filename) {
    throw new AppError(
      'bad_request',
      `Chunk ${filename} does not match its checksum: its SHA-1 is ${sha1(data)}.`,
    );
  }
  return { checksum: filename, data };
}

/** The request's chunks, read with busboy under the limits sentry-cli was given. */
export function readChunks(req: Request): Promise<Chunk[]> {
  if (!req.is('multipart/form-data')) {
    return Promise.reject(
      new AppError(
        'unsupported_media_type',
        'Send chunks as multipart/form-data, as sentry-cli does.',
      ),
    );
  }
  return new Promise((resolve, reject) => {
    const chunks: Chunk[] = [];
    let failed: AppError | undefined;
    const fail = (error: AppError): void => {
      failed ??= error;
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          files: UPLOAD_LIMITS.chunksPerRequest,
          // A gzip stream of incompressible bytes is a little larger than the bytes.
          fileSize: UPLOAD_LIMITS.chunkSize + 64 * 1024,
          fields: 10,
          parts: UPLOAD_LIMITS.chunksPerRequest + 10,
        },
      });
    } catch {
      reject(new AppError('bad_request', 'The multipart body could not be read (no boundary).'));
      return;
    }
    parser.on('file', (field, stream, info) => {
      const parts: Buffer[] = [];
      stream.on('data', (data: Buffer) => parts.push(data));
      // A body that ends inside a part (a cut-off upload): busboy destroys the part's stream with
      // "Unexpected end of form" (busboy lib/types/multipart.js, _destroy). Without this listener
      // that 'error' is an uncaught exception, which takes the whole ingest process down.
      stream.on('error', (error: Error) =>
        fail(
          new AppError(
            'bad_request',
            `The multipart body is malformed: it ends inside chunk ${info.filename} (${error.message}).`,
          ),
        ),
      );
      stream.on('limit', () =>
        fail(
          new AppError(
            'payload_too_large',
            `Chunk ${info.filename} is larger than the chunk size (${megabytes(UPLOAD_LIMITS.chunkSize)}).`,
          ),
        ),
      );
      stream.on('end', () => {
        if (failed) return;
        if (field !== 'file' && field !== 'file_gzip') {
          fail(new AppError('bad_request', `Unknown part "${field}": send "file" or "file_gzip".`));
          return;
        }
        try {
          chunks.push(chunkOf(field, info.filename ?? '', Buffer.concat(parts)));
        } catch (error) {
          fail(error as AppError);
        }
      });
    });
    parser.on('filesLimit', () =>
      fail(
        new AppError(
          'payload_too_large',
          `Send at most ${UPLOAD_LIMITS.chunksPerRequest} chunks per request.`,
        ),
      ),
    );
    parser.on('error', () => fail(new AppError('bad_request', 'The multipart body is malformed.')));
    parser.on('close', () => (failed ? reject(failed) : resolve(chunks)));
    req.on('aborted', () => reject(new AppError('bad_request', 'The upload was aborted.')));
    req.pipe(parser);
  });
}

/** Keeps the chunks (one copy each) until an assemble names them; stale ones go after a day. */
export async function storeChunks(
  db: Db,
  workspaceId: string,
  chunks: readonly Chunk[],
  quotaMb: number,
): Promise<void> {
  if (chunks.length === 0) return;
  await db
    .deleteFrom('upload_chunks')
    .where('workspace_id', '=', workspaceId)
    .where('created_at', '<', new Date(Date.now() - 24 * 60 * 60 * 1000))
    .execute();
  await checkQuota(
    db,
    workspaceId,
    chunks.reduce((sum, chunk) => sum + chunk.data.length, 0),
    quotaMb,
  );
  await db
    .insertInto('upload_chunks')
    .values(chunks.map((chunk) => ({ workspace_id: workspaceId, ...chunk })))
    .onConflict((oc) => oc.columns(['workspace_id', 'checksum']).doNothing())
    .execute();
}
