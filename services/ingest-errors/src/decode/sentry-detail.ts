import Bowser from 'bowser';
import { storable, truncate } from '@ferry/core';
import {
  DETAIL_CONTEXTS,
  DETAIL_LIMITS as CAP,
  type Breadcrumb,
  type DetailException,
  type DetailFrame,
  type OccurrenceDetail,
} from '@ferry/workspace';
import { boundDetail } from '../detail-bounds.js';
import { isPlainObject } from '../report.js';
import type { Frame, SentryEvent } from './sentry-event.js';

/**
 * A Sentry event -> the occurrence's structured detail (issue 41): frames with their code and
 * in_app, the exception chain, breadcrumbs, tags, user, request, contexts, level, logger,
 * server_name, sdk, release and the debug IDs of its minified files. Lenient like the rest of the
 * decoder: a part of the wrong shape is left out, never the event. Each part is cut to its cap
 * here; the total cap is boundDetail's. Scrubbing comes after, in acceptReports.
 */

/** A scalar as text, cut to `max`; anything else (objects, lists, null) is absent. */
function scalar(value: unknown, max: number): string | undefined {
  if (typeof value === 'string') return truncate(storable(value), max);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return undefined;
}

function whole(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) ? number : undefined;
}

/** Keep only the fields that are set, so the stored JSON carries no `undefined` keys. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as T;
}

function codeLines(lines: readonly unknown[] | undefined, from: 'start' | 'end'): string[] {
  const texts = (lines ?? []).map((line) => scalar(line, CAP.contextLineChars) ?? '');
  return from === 'end' ? texts.slice(-CAP.contextLines) : texts.slice(0, CAP.contextLines);
}

export function frameDetail(frame: Frame): DetailFrame {
  const pre = codeLines(frame.pre_context, 'end');
  const post = codeLines(frame.post_context, 'start');
  return defined({
    function: scalar(frame.function, CAP.frameTextChars),
    file: scalar(frame.filename ?? frame.abs_path, CAP.frameTextChars),
    module: scalar(frame.module, CAP.frameTextChars),
    line: whole(frame.lineno),
    column: whole(frame.colno),
    in_app: frame.in_app,
    pre_context: pre.length ? pre : undefined,
    context_line: scalar(frame.context_line, CAP.contextLineChars),
    post_context: post.length ? post : undefined,
  });
}

/** Sentry's frames, oldest first -> innermost first, the innermost DETAIL_LIMITS.framesPerStack. */
function stackDetail(frames: readonly (Frame | null)[] | undefined): DetailFrame[] {
  return (frames ?? [])
    .filter((frame): frame is Frame => frame !== null)
    .slice(-CAP.framesPerStack)
    .reverse()
    .map(frameDetail);
}

function exceptionsDetail(event: SentryEvent): DetailException[] | undefined {
  const raised = (event.exception ?? []).filter((value) => value !== null);
  if (raised.length === 0) return undefined;
  // The raised exception is last; its nearest causes are worth more than the oldest.
  return raised.slice(-CAP.exceptions).map((exception) =>
    defined({
      type: scalar(exception.type, CAP.frameTextChars) ?? 'Error',
      value: scalar(exception.value, CAP.exceptionValueChars) ?? '',
      module: scalar(exception.module, CAP.frameTextChars),
      frames: stackDetail(exception.stacktrace?.frames),
    }),
  );
}

/** Epoch seconds (SDKs send floats) or an ISO string -> ISO 8601; anything else is absent. */
function isoTime(value: unknown): string | undefined {
  const ms =
    typeof value === 'number' ? value * 1000 : typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : undefined;
}

/** A breadcrumb's data as sent, unless its JSON is past the cap (then a marker says so). */
function breadcrumbData(data: unknown): unknown {
  if (!isPlainObject(data)) return undefined;
  const json = JSON.stringify(data);
  return json.length <= CAP.breadcrumbDataChars
    ? (JSON.parse(storable(json)) as unknown)
    : `[data dropped: ${json.length} characters of JSON, over ${CAP.breadcrumbDataChars}]`;
}

function breadcrumbsDetail(raw: unknown): Breadcrumb[] | undefined {
  const list = isPlainObject(raw) ? raw.values : raw;
  if (!Array.isArray(list)) return undefined;
  const crumbs = list
    .slice(-CAP.breadcrumbs)
    .filter(isPlainObject)
    .map((crumb) =>
      defined({
        timestamp: isoTime(crumb.timestamp),
        type: scalar(crumb.type, CAP.tagKeyChars),
        category: scalar(crumb.category, CAP.tagValueChars),
        level: scalar(crumb.level, CAP.tagKeyChars),
        message: scalar(crumb.message, CAP.breadcrumbMessageChars),
        data: breadcrumbData(crumb.data),
      }),
    );
  return crumbs.length ? crumbs : undefined;
}

/** `{key: value}` or `[[key, value], ...]` (both are Sentry's) -> pairs of text. */
function pairs(raw: unknown): [string, unknown][] {
  if (isPlainObject(raw)) return Object.entries(raw);
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((pair): pair is [unknown, unknown] => Array.isArray(pair) && pair.length === 2)
    .flatMap(([key, value]) =>
      typeof key === 'string' ? [[key, value] as [string, unknown]] : [],
    );
}

function textRecord(
  raw: unknown,
  limits: { keys: number; keyChars: number; valueChars: number },
): Record<string, string> | undefined {
  const entries: [string, string][] = [];
  for (const [key, value] of pairs(raw)) {
    if (entries.length === limits.keys) break;
    const text = scalar(value, limits.valueChars);
    if (text !== undefined) entries.push([truncate(storable(key), limits.keyChars), text]);
  }
  return entries.length ? Object.fromEntries(entries) : undefined;
}

const USER_FIELDS = ['id', 'username', 'email', 'ip_address', 'name', 'segment'] as const;

function userDetail(raw: unknown): Record<string, string> | undefined {
  if (!isPlainObject(raw)) return undefined;
  const kept = USER_FIELDS.flatMap((field) => {
    const text = scalar(raw[field], CAP.userFieldChars);
    return text === undefined ? [] : [[field, text] as const];
  });
  return kept.length ? Object.fromEntries(kept) : undefined;
}

/** A query string as sent, or one rebuilt from Sentry's object and pair forms. */
function queryString(raw: unknown): string | undefined {
  if (typeof raw === 'string')
    return truncate(storable(raw.replace(/^\?/, '')), CAP.requestUrlChars);
  const found = pairs(raw).flatMap(([key, value]) => {
    const text = scalar(value, CAP.headerValueChars);
    return text === undefined ? [] : [[key, text]];
  });
  return found.length
    ? truncate(storable(new URLSearchParams(found).toString()), CAP.requestUrlChars)
    : undefined;
}

function requestDetail(request: SentryEvent['request']): OccurrenceDetail['request'] {
  if (!request) return undefined;
  const headers = pairs(request.headers)
    .slice(0, CAP.requestHeaders)
    .flatMap(([name, value]): [string, string][] => {
      const text = scalar(value, CAP.headerValueChars);
      return text === undefined ? [] : [[truncate(storable(name), CAP.tagKeyChars), text]];
    });
  const detail = defined({
    method: scalar(request.method, CAP.tagKeyChars),
    url: scalar(request.url, CAP.requestUrlChars),
    query_string: queryString(request.query_string),
    headers: headers.length ? headers : undefined,
  });
  return Object.keys(detail).length ? detail : undefined;
}

function contextsDetail(raw: unknown): OccurrenceDetail['contexts'] {
  if (!isPlainObject(raw)) return undefined;
  const kept = DETAIL_CONTEXTS.flatMap((name) => {
    const record = textRecord(raw[name], {
      keys: CAP.contextKeys,
      keyChars: CAP.tagKeyChars,
      valueChars: CAP.contextValueChars,
    });
    return record ? [[name, record] as const] : [];
  });
  return kept.length ? Object.fromEntries(kept) : undefined;
}

/**
 * What Sentry's Relay does for browser events, whose SDK sends no browser or os context: both read
 * from the request's User-Agent (with bowser), so the tag breakdown can say "Chrome 156, Linux".
 * A context the SDK sent is kept as sent.
 */
function withUserAgent(
  contexts: OccurrenceDetail['contexts'],
  request: OccurrenceDetail['request'],
): OccurrenceDetail['contexts'] {
  const agent = request?.headers?.find(([name]) => name.toLowerCase() === 'user-agent')?.[1];
  if (!agent || (contexts?.browser && contexts.os)) return contexts;
  const parsed = Bowser.parse(agent);
  const part = (name: string | undefined, version: string | undefined): [string, string][] =>
    name
      ? [
          ['name', truncate(name, CAP.contextValueChars)],
          ...(version
            ? [['version', truncate(version, CAP.contextValueChars)] as [string, string]]
            : []),
        ]
      : [];
  const merged: Record<string, Record<string, string>> = { ...contexts };
  const browser = part(parsed.browser.name, parsed.browser.version);
  // Windows reports "NT 10.0"; bowser's version name ("10", "8.1", "XP") is what people call it.
  const os = part(
    parsed.os.name,
    parsed.os.name === 'Windows' ? (parsed.os.versionName ?? parsed.os.version) : parsed.os.version,
  );
  if (!merged.browser && browser.length) merged.browser = Object.fromEntries(browser);
  if (!merged.os && os.length) merged.os = Object.fromEntries(os);
  return Object.keys(merged).length ? merged : undefined;
}

/** debug_meta.images of type `sourcemap`: the debug ID each minified file was built with. */
function debugImages(raw: unknown): OccurrenceDetail['debug_images'] {
  const images = isPlainObject(raw) ? raw.images : undefined;
  if (!Array.isArray(images)) return undefined;
  const kept = images
    .filter(isPlainObject)
    .filter((image) => image.type === 'sourcemap')
    .flatMap((image) => {
      const codeFile = scalar(image.code_file, CAP.requestUrlChars);
      const debugId = scalar(image.debug_id, 64);
      return codeFile && debugId ? [{ code_file: codeFile, debug_id: debugId.toLowerCase() }] : [];
    })
    .slice(0, CAP.debugImages);
  return kept.length ? kept : undefined;
}

export function sentryDetail(
  event: SentryEvent,
  frames: readonly (Frame | null)[] | undefined,
): OccurrenceDetail {
  const exceptions = exceptionsDetail(event);
  const request = requestDetail(event.request);
  const sdkName = scalar(event.sdk?.name, CAP.tagValueChars);
  const detail: OccurrenceDetail = defined({
    exceptions,
    // A message event's own stack; an exception's frames live with it.
    frames: exceptions ? undefined : stackDetail(frames),
    breadcrumbs: breadcrumbsDetail(event.breadcrumbs),
    tags: textRecord(event.tags, {
      keys: CAP.tags,
      keyChars: CAP.tagKeyChars,
      valueChars: CAP.tagValueChars,
    }),
    user: userDetail(event.user),
    request,
    contexts: withUserAgent(contextsDetail(event.contexts), request),
    level: scalar(event.level, CAP.tagKeyChars),
    logger: scalar(event.logger, CAP.tagValueChars),
    server_name: scalar(event.server_name, CAP.tagValueChars),
    sdk: sdkName
      ? defined({ name: sdkName, version: scalar(event.sdk?.version, CAP.tagKeyChars) })
      : undefined,
    release: scalar(event.release, CAP.releaseChars),
    dist: scalar(event.dist, CAP.tagKeyChars),
    debug_images: debugImages(event.debug_meta),
  });
  if (detail.frames?.length === 0) delete detail.frames;
  return boundDetail(detail);
}
