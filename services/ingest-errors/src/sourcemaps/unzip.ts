import yauzl from 'yauzl';
import { AppError } from '@ferry/core';
import { megabytes, UPLOAD_LIMITS } from './limits.js';

/**
 * An artifact bundle's zip, read with yauzl under our limits: every file's declared size is
 * checked before it is inflated, and yauzl checks the bytes inflated against that declaration
 * (validateEntrySizes), so a zip bomb stops at the first byte past the declared size. Everything
 * that goes wrong is the upload's fault: a 400 or 413 that says what, never a 500.
 */

export interface UnzippedFile {
  path: string;
  data: Buffer;
}

const badZip = (why: string): AppError =>
  new AppError('bad_request', `The uploaded bundle is not a valid zip: ${why}.`);

export async function unzipBundle(zip: Buffer, maxTotalBytes: number): Promise<UnzippedFile[]> {
  let archive: yauzl.ZipFile;
  try {
    archive = await yauzl.fromBufferPromise(zip, { lazyEntries: true, validateEntrySizes: true });
  } catch (error) {
    throw badZip((error as Error).message);
  }
  if (archive.entryCount > UPLOAD_LIMITS.maxFiles) {
    throw new AppError(
      'payload_too_large',
      `The bundle holds ${archive.entryCount} files; at most ${UPLOAD_LIMITS.maxFiles} are accepted.`,
    );
  }
  const files: UnzippedFile[] = [];
  let total = 0;
  try {
    for (;;) {
      const entry = await nextEntry(archive);
      if (!entry) break;
      if (entry.fileName.endsWith('/')) continue; // a folder
      if (entry.isEncrypted()) throw badZip(`${entry.fileName} is encrypted`);
      if (entry.uncompressedSize > UPLOAD_LIMITS.maxFileBytes) {
        throw new AppError(
          'payload_too_large',
          `${entry.fileName} is ${megabytes(entry.uncompressedSize)} unpacked; the largest file accepted is ${megabytes(UPLOAD_LIMITS.maxFileBytes)}.`,
        );
      }
      total += entry.uncompressedSize;
      if (total > maxTotalBytes) {
        throw new AppError(
          'payload_too_large',
          `The bundle unpacks to more than ${megabytes(maxTotalBytes)}, what is left of the workspace's source map quota.`,
        );
      }
      files.push({ path: entry.fileName, data: await readEntry(archive, entry) });
    }
  } finally {
    archive.close();
  }
  return files;
}

function nextEntry(archive: yauzl.ZipFile): Promise<yauzl.Entry | undefined> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      archive.off('entry', onEntry);
      archive.off('end', onEnd);
      archive.off('error', onError);
    };
    const onEntry = (entry: yauzl.Entry): void => {
      cleanup();
      resolve(entry);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(undefined);
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(badZip(error.message));
    };
    archive.on('entry', onEntry);
    archive.on('end', onEnd);
    archive.on('error', onError);
    archive.readEntry();
  });
}

async function readEntry(archive: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  try {
    const stream = await archive.openReadStreamPromise(entry);
    const parts: Buffer[] = [];
    for await (const part of stream) parts.push(part as Buffer);
    return Buffer.concat(parts);
  } catch (error) {
    throw badZip(`${entry.fileName}: ${(error as Error).message}`);
  }
}
