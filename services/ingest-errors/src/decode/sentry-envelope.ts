import { AppError } from '@ferry/core';
import { readSentryEvent, type SentryEvent } from './sentry-event.js';

/**
 * Sentry's envelope (develop.sentry.dev/sdk/data-model/envelopes/): a JSON header line, then items,
 * each a JSON header line and a payload of exactly `length` bytes (or, without `length`, up to the
 * next newline). Lengths count bytes, so the body is read as a Buffer, never as a string.
 *
 * Only the `event` item becomes a report; everything else an SDK sends (session, sessions,
 * client_report, transaction, attachment, check_in, profile, replay...) is accepted and dropped,
 * as DESIGN.md decides. A header that is no JSON object, a length that runs past the body or an
 * event that is no JSON object answers 400: the SDK sent something no Sentry server would take.
 */

const NEWLINE = 0x0a;

export interface DecodedSentry {
  /** The error or message event, when the request carried one. */
  event?: SentryEvent;
  /** The event's id from the envelope header or the event (Sentry's 32 hex digits, normalized). */
  eventId?: string;
  /** The public key from the envelope header's `dsn` (SDKs behind a tunnel send no other). */
  dsnKey?: string;
}

const badEnvelope = (why: string): AppError =>
  new AppError('bad_request', `The Sentry envelope could not be read: ${why}.`);

function jsonObject(bytes: Buffer, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw badEnvelope(`its ${what} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badEnvelope(`its ${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** One line from `start`: its bytes, and where the next line starts. */
function lineAt(body: Buffer, start: number): { bytes: Buffer; next: number } {
  const end = body.indexOf(NEWLINE, start);
  return end === -1
    ? { bytes: body.subarray(start), next: body.length }
    : { bytes: body.subarray(start, end), next: end + 1 };
}

/** Sentry's event id: 32 hex digits (a UUID, dashes allowed), kept lower case without dashes. */
export function normalizeEventId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const hex = value.replaceAll('-', '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) ? hex : undefined;
}

/** The `sentry_key` of a DSN (`https://<key>@host/<project>`), when it is one. */
export function dsnKey(dsn: unknown): string | undefined {
  if (typeof dsn !== 'string') return undefined;
  try {
    return new URL(dsn).username || undefined;
  } catch {
    return undefined;
  }
}

export function decodeEnvelope(body: Buffer): DecodedSentry {
  if (body.length === 0) throw badEnvelope('the body is empty');
  const first = lineAt(body, 0);
  const header = jsonObject(first.bytes, 'header');
  const decoded: DecodedSentry = {
    eventId: normalizeEventId(header.event_id),
    dsnKey: dsnKey(header.dsn),
  };
  let at = first.next;
  while (at < body.length) {
    const itemLine = lineAt(body, at);
    // A trailing newline (or blank line) between items is allowed.
    if (itemLine.bytes.length === 0) {
      at = itemLine.next;
      continue;
    }
    const item = jsonObject(itemLine.bytes, 'item header');
    if (typeof item.type !== 'string') throw badEnvelope('an item header names no type');
    let payload: Buffer;
    if (item.length === undefined || item.length === null) {
      const rest = lineAt(body, itemLine.next);
      payload = rest.bytes;
      at = rest.next;
    } else {
      const length = item.length;
      if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
        throw badEnvelope('an item length is not a byte count');
      }
      const end = itemLine.next + length;
      if (end > body.length) throw badEnvelope('an item is longer than the body');
      payload = body.subarray(itemLine.next, end);
      at = body[end] === NEWLINE ? end + 1 : end;
    }
    if (item.type === 'event' && !decoded.event) {
      const event = readSentryEvent(jsonObject(payload, 'event'));
      if (!event) throw badEnvelope('its event is not a Sentry event');
      decoded.event = event;
      decoded.eventId ??= normalizeEventId(event.event_id);
    }
  }
  return decoded;
}
