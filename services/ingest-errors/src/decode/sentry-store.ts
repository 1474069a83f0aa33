import { inflateSync } from 'node:zlib';
import { AppError } from '@ferry/core';
import { normalizeEventId, type DecodedSentry } from './sentry-envelope.js';
import { readSentryEvent } from './sentry-event.js';

/**
 * Sentry's legacy store endpoint: the body is one event as JSON (Content-Encoding already undone
 * by the body reader), or, from older clients such as the Ruby raven client, the base64 of the
 * zlib-deflated JSON with no Content-Encoding at all. Relay reads it the same way (relay-server's
 * endpoints/store.rs) and then treats it as an envelope holding one event, as we do.
 */

const notAnEvent = (): AppError =>
  new AppError(
    'bad_request',
    'The body is not a Sentry event: send JSON, or the base64 of zlib-deflated JSON.',
  );

/** The JSON text of the body: as sent, or base64 + zlib undone (capped at `maxBytes`). */
function jsonText(body: Buffer, maxBytes: number): string {
  const start = body.findIndex(
    (byte) => byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09,
  );
  if (start === -1) throw notAnEvent();
  if (body[start] === 0x7b /* { */) return body.toString('utf8');
  const text = body.toString('latin1').trim();
  if (!/^[A-Za-z0-9+/=_-]+$/.test(text)) throw notAnEvent();
  try {
    return inflateSync(Buffer.from(text, 'base64'), { maxOutputLength: maxBytes }).toString('utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new AppError('payload_too_large', 'The Sentry event is too large once inflated.');
    }
    throw notAnEvent();
  }
}

export function decodeStore(body: Buffer, maxBytes: number): DecodedSentry {
  let raw: unknown;
  try {
    raw = JSON.parse(jsonText(body, maxBytes));
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw notAnEvent();
  }
  const event = readSentryEvent(raw);
  if (!event) throw notAnEvent();
  return { event, eventId: normalizeEventId(event.event_id) };
}
