import type { Request } from 'express';
import busboy from 'busboy';
import { AppError } from '@ferry/core';
import {
  MESSAGE_FILES_MAX,
  MESSAGE_FILES_TOTAL_MAX,
  MESSAGE_FILE_MAX,
  type IncomingFile,
} from '@ferry/workspace';
import { STORED_PAYLOAD_MAX } from '../decode/request-body.js';

/**
 * Discord's multipart body (https://discord.com/developers/docs/reference#uploading-files): a
 * `payload_json` field (or plain fields such as `content`) and the files as `files[n]`. Read with
 * busboy under limits on every dimension, so a multipart bomb (thousands of parts, huge field
 * values, endless headers, a file past its cap, a body past the message's cap) ends as a clean
 * 400 or 413 with at most the message's cap held in memory, never a crash or a 500.
 */

export interface MultipartBody {
  /** The text fields, by name (`payload_json` among them). */
  fields: Record<string, string>;
  /** The files by the n of their `files[n]` (a lone `file` is 0), in the order sent. */
  files: (IncomingFile & { index: number })[];
}

/** Room for `payload_json` and the parts' headers on top of the files themselves. */
const OVERHEAD_MAX = STORED_PAYLOAD_MAX + 64 * 1024;
const FIELDS_MAX = 20;

const FILE_FIELD = /^(?:files\[(\d{1,2})\]|file(\d{0,2}))$/;

const tooLarge = (message: string) => new AppError('payload_too_large', message);
const malformed = (message: string) => new AppError('bad_request', message);

export function isMultipart(req: Request): boolean {
  return Boolean(req.is('multipart/form-data'));
}

/** Reads the request's multipart body; rejects with the first limit it broke. */
export function readMultipart(req: Request): Promise<MultipartBody> {
  const declared = Number(req.get('Content-Length') ?? NaN);
  if (declared > MESSAGE_FILES_TOTAL_MAX + OVERHEAD_MAX) {
    return Promise.reject(
      tooLarge(`The body is ${declared} bytes; a message's files come to at most 25 MB together.`),
    );
  }
  return new Promise((resolve, reject) => {
    const body: MultipartBody = { fields: {}, files: [] };
    let total = 0;
    let failed: AppError | undefined;
    const fail = (error: AppError): void => {
      failed ??= error;
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // File names as senders write them (undici, browsers): UTF-8, not busboy's latin1.
        defParamCharset: 'utf8',
        limits: {
          fieldNameSize: 100,
          fieldSize: STORED_PAYLOAD_MAX,
          fields: FIELDS_MAX,
          files: MESSAGE_FILES_MAX,
          fileSize: MESSAGE_FILE_MAX,
          parts: FIELDS_MAX + MESSAGE_FILES_MAX,
          headerPairs: 20,
        },
      });
    } catch {
      reject(malformed('The multipart body could not be read (no boundary).'));
      return;
    }
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) {
        fail(tooLarge(`Field "${name.slice(0, 40)}" is longer than 64 KB.`));
      } else if (info.nameTruncated) {
        fail(malformed('A field name is longer than 100 characters.'));
      } else {
        body.fields[name] = value;
      }
    });
    parser.on('file', (name, stream, info) => {
      const match = FILE_FIELD.exec(name);
      const chunks: Buffer[] = [];
      if (!match) fail(malformed(`Unknown file part "${name.slice(0, 40)}": send files[n].`));
      stream.on('data', (data: Buffer) => {
        // Past a failure the rest is read and dropped: nothing more is held.
        if (failed) return;
        total += data.length;
        if (total > MESSAGE_FILES_TOTAL_MAX) {
          fail(tooLarge("A message's files come to at most 25 MB together."));
          chunks.length = 0;
          return;
        }
        chunks.push(data);
      });
      stream.on('limit', () =>
        fail(tooLarge(`File "${(info.filename ?? name).slice(0, 80)}" is larger than 8 MB.`)),
      );
      // A body cut off inside a part: busboy destroys the part's stream with an error; without
      // this listener it would be an uncaught exception.
      stream.on('error', () => fail(malformed('The multipart body ends inside a file.')));
      stream.on('end', () => {
        if (failed || !match) return;
        body.files.push({
          index: Number(match[1] ?? (match[2] || '0')),
          name: info.filename ?? name,
          bytes: Buffer.concat(chunks),
        });
      });
    });
    parser.on('filesLimit', () =>
      fail(tooLarge(`A message holds at most ${MESSAGE_FILES_MAX} files.`)),
    );
    parser.on('fieldsLimit', () => fail(malformed(`Send at most ${FIELDS_MAX} fields.`)));
    parser.on('partsLimit', () => fail(malformed('The multipart body has too many parts.')));
    parser.on('error', (error: Error) =>
      fail(malformed(`The multipart body is malformed (${error.message}).`)),
    );
    parser.on('close', () => (failed ? reject(failed) : resolve(body)));
    req.on('aborted', () => reject(malformed('The upload was aborted.')));
    req.pipe(parser);
  });
}
