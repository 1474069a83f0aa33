import { AppError, storable, storableDeep } from '@ferry/core';

/**
 * The request body as a payload object. SPEC.md's `application/json`, and the
 * `application/x-www-form-urlencoded` body Slack and Mattermost also take: the JSON in a `payload`
 * field (https://docs.slack.dev/messaging/sending-messages-using-incoming-webhooks), or plain
 * fields (`body=…&sender=…`, what `curl -d` sends), or JSON under the form header (`curl -d '{…}'`
 * without `-H`). No Content-Type at all is read as JSON: some senders never set one.
 */

export type PayloadFormat = 'json' | 'form';

/** DESIGN.md: the original payload is kept with the message, at most this many bytes (UTF-8). */
export const STORED_PAYLOAD_MAX = 64 * 1024;

export interface RequestPayload {
  value: unknown;
  format: PayloadFormat;
  /** The payload's JSON as sent (for forms: the `payload` field, or the fields as JSON), capped. */
  original: string;
  /** The original was longer than STORED_PAYLOAD_MAX and is cut there. */
  truncated: boolean;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;
const FORM = 'application/x-www-form-urlencoded';

export function unsupportedMediaType(type: string): AppError {
  return new AppError(
    'unsupported_media_type',
    `Content-Type ${type} is not supported. Send the payload as application/json, or as application/x-www-form-urlencoded with the JSON in a "payload" field.`,
  );
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('invalid_json', `${what} is not valid JSON.`);
  }
}

/** Reads the raw body by its Content-Type; throws 415 for a type we do not read, 400 for bad JSON. */
export function readPayload(
  contentType: string | undefined,
  raw: string | undefined,
): RequestPayload {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const json = type === '' || JSON_TYPE.test(type);
  if (!json && type !== FORM) throw unsupportedMediaType(type);
  const body = raw ?? '';
  // No body at all is a post without its message (422 naming it), not bad JSON.
  if (!body.trim()) return { value: undefined, format: 'json', original: '', truncated: false };
  if (json || body.trimStart().startsWith('{')) {
    return {
      value: storableDeep(parseJson(body, 'The request body')),
      format: 'json',
      ...cap(body),
    };
  }
  const form = new URLSearchParams(body);
  const payload = form.get('payload');
  if (payload !== null) {
    return {
      value: storableDeep(parseJson(payload, 'The "payload" field')),
      format: 'form',
      ...cap(payload),
    };
  }
  const fields = storableDeep(Object.fromEntries(form));
  return { value: fields, format: 'form', ...cap(JSON.stringify(fields)) };
}

const encoder = new TextEncoder();

/**
 * The text cut to STORED_PAYLOAD_MAX bytes of UTF-8 (what "64 KB" says), never inside a character:
 * encodeInto writes whole characters only, and `read` counts the code units they came from.
 */
function cap(text: string): { original: string; truncated: boolean } {
  const clean = storable(text);
  // A third of the budget in code units cannot exceed it (UTF-8 takes at most 3 bytes a code unit).
  if (clean.length * 3 <= STORED_PAYLOAD_MAX || Buffer.byteLength(clean) <= STORED_PAYLOAD_MAX) {
    return { original: clean, truncated: false };
  }
  const { read } = encoder.encodeInto(clean, new Uint8Array(STORED_PAYLOAD_MAX));
  return { original: clean.slice(0, read), truncated: true };
}
