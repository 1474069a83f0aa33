import { isId, storableDeep } from '@ferry/core';
import { MESSAGE_BODY_MAX, type IncomingFile, type OriginalPayload } from '@ferry/workspace';
import { isObject } from '../decode/lenient.js';
import { renderDiscordMessage } from '../decode/discord.js';
import { DISCORD_CODE, DiscordError, invalidFormBody } from './errors.js';
import type { MultipartBody } from './multipart.js';

/**
 * Discord's Execute Webhook and Edit Webhook Message bodies
 * (https://discord.com/developers/docs/resources/webhook#execute-webhook-jsonform-params), checked
 * as Discord checks them (a wrong type or a length past Discord's is 400 "Invalid Form Body",
 * 50035), then rendered by the same decoder as a Discord payload posted to /wh/in/<key>
 * (decode/discord.ts), so a message looks the same whichever way it came.
 */

/** Discord's own caps on a webhook message. */
const CONTENT_MAX = 2_000;
const EMBEDS_MAX = 10;
const USERNAME_MAX = 80;

export interface DiscordPayload {
  /** The payload object as sent (capped, storable). */
  object: Record<string, unknown>;
  /** Its JSON, what is kept as the message's original payload. */
  original: OriginalPayload;
  /** The files, with the names `attachments[].filename` gives them (Discord's rule). */
  files: IncomingFile[];
  /**
   * Ids of the message's existing files to keep (an edit's `attachments`); undefined when the
   * payload has no `attachments` list (an edit then keeps every file).
   */
  keepFileIds: string[] | undefined;
}

/** Reads a JSON body (`raw`) or a multipart one into the payload; throws Discord's 400s. */
export function readDiscordPayload(
  raw: string | undefined,
  multipart: MultipartBody | undefined,
): DiscordPayload {
  const { object, format } = multipart
    ? fromMultipart(multipart)
    : { object: parseObject(raw ?? '', 'The request body'), format: 'json' };
  const problems: Record<string, string> = {};
  if (object.content !== undefined && object.content !== null) {
    if (typeof object.content !== 'string') problems.content = 'Must be a string.';
    else if ([...object.content].length > CONTENT_MAX)
      problems.content = `Must be ${CONTENT_MAX} or fewer in length.`;
  }
  if (object.embeds !== undefined && object.embeds !== null) {
    if (!Array.isArray(object.embeds)) problems.embeds = 'Must be an array of embeds.';
    else if (object.embeds.length > EMBEDS_MAX)
      problems.embeds = `Must be ${EMBEDS_MAX} or fewer in length.`;
  }
  if (object.username !== undefined && object.username !== null) {
    if (typeof object.username !== 'string') problems.username = 'Must be a string.';
    else if (object.username.trim().length > USERNAME_MAX)
      problems.username = `Must be ${USERNAME_MAX} or fewer in length.`;
  }
  const attachments = object.attachments;
  if (attachments !== undefined && attachments !== null && !Array.isArray(attachments)) {
    problems.attachments = 'Must be an array.';
  }
  if (Object.keys(problems).length) throw invalidFormBody(problems);

  const described = Array.isArray(attachments) ? attachments.filter(isObject) : [];
  const filenameOf = (index: number): string | undefined => {
    const entry = described.find((a) => String(a.id) === String(index));
    return typeof entry?.filename === 'string' ? entry.filename : undefined;
  };
  const files = (multipart?.files ?? []).map((file) => ({
    name: filenameOf(file.index) ?? file.name,
    bytes: file.bytes,
  }));
  const keepFileIds = Array.isArray(attachments)
    ? described.map((a) => a.id).filter((id): id is string => isId(id, 'messageFile'))
    : undefined;
  // The file list lives with the message (metadata.files); the payload keeps the rest.
  const { attachments: _attachments, ...kept } = object;
  return {
    object: kept,
    original: { format, payload: JSON.stringify(kept), truncated: false },
    files,
    keepFileIds,
  };
}

function parseObject(text: string, what: string): Record<string, unknown> {
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw invalidJson(what);
  }
  if (!isObject(value)) throw invalidFormBody({ _: `${what} must be a JSON object.` });
  return storableDeep(value);
}

function invalidJson(what: string): DiscordError {
  return new DiscordError(
    'invalid_json',
    DISCORD_CODE.invalidJson,
    `The request body contains invalid JSON. ${what} is not valid JSON.`,
  );
}

/** `payload_json` when sent (Discord: it wins), else the plain form fields. */
function fromMultipart(body: MultipartBody): {
  object: Record<string, unknown>;
  format: string;
} {
  const json = body.fields.payload_json;
  if (json !== undefined) return { object: parseObject(json, 'payload_json'), format: 'multipart' };
  const { payload_json: _json, ...fields } = body.fields;
  return { object: storableDeep<Record<string, unknown>>(fields), format: 'multipart' };
}

/** The message text the payload renders to ('' when it has none: files alone, or empty). */
export function renderedText(object: Record<string, unknown>): string {
  const text = renderDiscordMessage(object).trim();
  if (text.length > MESSAGE_BODY_MAX) {
    throw invalidFormBody({
      content: `Renders to more than ${MESSAGE_BODY_MAX.toLocaleString('en-US')} characters.`,
    });
  }
  return text;
}

/**
 * An edit's payload: the stored one with the fields the PATCH sends replacing theirs (Discord:
 * what is not sent is kept; `null` clears it). Only what an edit may change is taken.
 */
export function mergeEdit(
  stored: OriginalPayload | undefined,
  edit: Record<string, unknown>,
): { object: Record<string, unknown>; original: OriginalPayload } {
  let base: Record<string, unknown> = {};
  if (stored && !stored.truncated) {
    try {
      const parsed = JSON.parse(stored.payload) as unknown;
      if (isObject(parsed)) base = parsed;
    } catch {
      // A payload that is not JSON (a form) is replaced by the edit's fields.
    }
  }
  const object = { ...base };
  for (const field of ['content', 'embeds', 'allowed_mentions', 'components', 'flags']) {
    if (field in edit) object[field] = edit[field];
  }
  return {
    object,
    original: {
      format: stored?.format ?? 'json',
      payload: JSON.stringify(object),
      truncated: false,
    },
  };
}
