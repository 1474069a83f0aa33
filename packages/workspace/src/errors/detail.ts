import { z } from 'zod';

/**
 * An occurrence's structured detail (issue 41; DESIGN.md, fourth wave): what a Sentry event says
 * beyond SPEC.md's report fields, kept so the group page, the Errors API and "Fix with agent" can
 * show frames with their code, the exception chain, breadcrumbs, tags, user, request and contexts.
 * ingest-errors builds it (decode/sentry-detail.ts), scrubs it, maps its frames through source
 * maps, and stores it as jsonb beside SPEC.md's fields, which keep their own caps. A report from
 * /ingest/errors has none.
 *
 * Every part has its own cap (DETAIL_LIMITS) and the whole a total (about 64 KB of JSON): what a
 * cap cut is named in `truncated`, so a reader knows the detail is partial.
 */

export const DETAIL_LIMITS = {
  /** The whole detail as JSON, in characters. */
  totalChars: 64_000,
  framesPerStack: 50,
  /** Lines of code either side of a frame's own line. */
  contextLines: 5,
  contextLineChars: 200,
  frameTextChars: 300,
  exceptions: 10,
  exceptionValueChars: 1_000,
  breadcrumbs: 100,
  breadcrumbMessageChars: 500,
  /** A breadcrumb's `data`, as JSON: past it, the data is replaced by a marker. */
  breadcrumbDataChars: 1_000,
  tags: 50,
  tagKeyChars: 60,
  tagValueChars: 200,
  userFieldChars: 200,
  requestUrlChars: 2_000,
  requestHeaders: 40,
  headerValueChars: 500,
  contextKeys: 20,
  contextValueChars: 300,
  debugImages: 100,
  releaseChars: 200,
} as const;

/** The contexts kept, by Sentry's names (develop.sentry.dev/sdk/data-model/event-payloads/contexts/). */
export const DETAIL_CONTEXTS = ['browser', 'os', 'runtime', 'device', 'app'] as const;

export const detailFrameSchema = z.object({
  function: z.string().optional(),
  /** The file as the frame names it (Sentry's filename, else abs_path). */
  file: z.string().optional(),
  module: z.string().optional(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  in_app: z.boolean().optional(),
  pre_context: z.array(z.string()).optional(),
  context_line: z.string().optional(),
  post_context: z.array(z.string()).optional(),
  /** Set when a source map resolved this frame: where it was in the minified file. */
  minified: z.object({ file: z.string(), line: z.number(), column: z.number() }).optional(),
});

export const detailExceptionSchema = z.object({
  type: z.string(),
  value: z.string(),
  module: z.string().optional(),
  /** Innermost first, like SPEC.md's backtrace. */
  frames: z.array(detailFrameSchema),
});

export const breadcrumbSchema = z.object({
  timestamp: z.string().optional(),
  type: z.string().optional(),
  category: z.string().optional(),
  level: z.string().optional(),
  message: z.string().optional(),
  data: z.unknown().optional(),
});

export const occurrenceDetailSchema = z.object({
  /** Oldest cause first, the raised exception last, as Sentry sends them. */
  exceptions: z.array(detailExceptionSchema).optional(),
  /** A message event's stack (attachStacktrace) or its thread's, innermost first. */
  frames: z.array(detailFrameSchema).optional(),
  /** Oldest first; the last DETAIL_LIMITS.breadcrumbs. */
  breadcrumbs: z.array(breadcrumbSchema).optional(),
  tags: z.record(z.string(), z.string()).optional(),
  user: z.record(z.string(), z.string()).optional(),
  request: z
    .object({
      method: z.string().optional(),
      url: z.string().optional(),
      query_string: z.string().optional(),
      headers: z.array(z.tuple([z.string(), z.string()])).optional(),
    })
    .optional(),
  contexts: z.record(z.string(), z.record(z.string(), z.string())).optional(),
  level: z.string().optional(),
  logger: z.string().optional(),
  server_name: z.string().optional(),
  sdk: z.object({ name: z.string(), version: z.string().optional() }).optional(),
  /** The whole release and dist (SPEC.md's app_version is cut to 40): source maps match on them. */
  release: z.string().optional(),
  dist: z.string().optional(),
  /** debug_meta's source-map images: which debug ID each minified file was built with. */
  debug_images: z.array(z.object({ code_file: z.string(), debug_id: z.string() })).optional(),
  /** What a cap cut, in words ("breadcrumbs: 40 oldest dropped"). */
  truncated: z.array(z.string()).optional(),
});

export type DetailFrame = z.infer<typeof detailFrameSchema>;
export type DetailException = z.infer<typeof detailExceptionSchema>;
export type Breadcrumb = z.infer<typeof breadcrumbSchema>;
export type OccurrenceDetail = z.infer<typeof occurrenceDetailSchema>;

/** The frames that say where the error happened: the raised exception's, else the event's own. */
export function detailFrames(detail: OccurrenceDetail): DetailFrame[] {
  return detail.exceptions?.at(-1)?.frames ?? detail.frames ?? [];
}

/** A frame as one of SPEC.md's backtrace lines: `file:line:column:in function` (what it has). */
export function detailFrameLine(frame: DetailFrame): string {
  const file = frame.file ?? frame.module ?? '?';
  const position = [frame.line, frame.column].filter((part) => part !== undefined).join(':');
  const where = position ? `${file}:${position}` : file;
  return frame.function ? `${where}:in ${frame.function}` : where;
}

/** Whether a source map resolved any of the detail's frames. */
export function anyFrameMapped(detail: OccurrenceDetail): boolean {
  const stacks = [...(detail.exceptions ?? []).map((e) => e.frames), detail.frames ?? []];
  return stacks.some((frames) => frames.some((frame) => frame.minified !== undefined));
}

/** The part of a context that names it: `Chrome 156` of browser {name, version: 156.0.8078.73}. */
function contextTag(record: Record<string, string> | undefined): string | undefined {
  if (!record?.name) return undefined;
  const major = record.version?.split('.')[0];
  return major ? `${record.name} ${major}` : record.name;
}

/**
 * An occurrence's tags as the tag breakdown counts them: browser, os, runtime and device from its
 * contexts (name and major version, as Sentry's own tags read), then the SDK's tags, which win
 * over a derived one of the same name. Undefined when there are none.
 */
export function detailTags(detail: OccurrenceDetail): Record<string, string> | undefined {
  const derived = Object.fromEntries(
    (['browser', 'os', 'runtime', 'device'] as const).flatMap((name) => {
      const tag = contextTag(detail.contexts?.[name]);
      return tag ? [[name, tag]] : [];
    }),
  );
  const tags = { ...derived, ...detail.tags };
  return Object.keys(tags).length ? tags : undefined;
}

/** Sentry's own caps on a tag: what a native report's context.tags keeps. */
const NATIVE_TAG_LIMITS = { tags: 50, key: 32, value: 200 } as const;

/**
 * Issue 43: a native `/ingest/errors` report's tags are the scalar entries (string, number,
 * boolean) of its `context.tags` when that is an object, as text; undefined without any.
 */
export function contextTags(context: Record<string, unknown>): Record<string, string> | undefined {
  const tags = context.tags;
  if (!tags || typeof tags !== 'object' || Array.isArray(tags)) return undefined;
  const entries = Object.entries(tags as Record<string, unknown>)
    .filter(
      (entry): entry is [string, string | number | boolean] =>
        ['string', 'number', 'boolean'].includes(typeof entry[1]) &&
        entry[0].length > 0 &&
        entry[0].length <= NATIVE_TAG_LIMITS.key,
    )
    .slice(0, NATIVE_TAG_LIMITS.tags)
    .map(([key, value]): [string, string] => [
      key,
      String(value).slice(0, NATIVE_TAG_LIMITS.value),
    ]);
  return entries.length ? Object.fromEntries(entries) : undefined;
}
