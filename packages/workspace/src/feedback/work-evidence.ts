import { DEFAULT_SCRUB_RULES, scrubText, type ScrubRules } from '@ferry/core';
import type { Db, EvidenceEntry, Feedback } from '@ferry/db';
import { z } from 'zod';
import { newestBuildOf, type DetailFrame, type Symbolicator } from '../errors/index.js';
import { findEvidence, maskQuery } from './evidence.js';
import { ticketContext, type TicketContext } from './feedback.js';
import { stackLines } from './stack-frames.js';

/**
 * A widget ticket's evidence as a local agent's work item carries it (issue 45, part 4;
 * packages/agent/PROTOCOL.md): what a coding agent needs from the timeline, not the timeline.
 * Failed requests, the page's errors with their stacks (mapped through the workspace's uploaded
 * source maps where one holds the file), the last console lines and route changes, newest last.
 * Kept small (WORK_EVIDENCE_MAX_BYTES): a work item is one SSE event and its text goes into a
 * prompt. What the lists or the cap left out is counted in `omitted`; `dropped` is what the
 * widget or the stored cap let go before that.
 */

export const WORK_EVIDENCE_LIMITS = {
  failedRequests: 20,
  errors: 10,
  console: 30,
  navigation: 10,
  /** Frame lines per error: the top of the stack is what says where. */
  stackLines: 15,
} as const;

/** The whole `evidence` object's JSON, in bytes. */
export const WORK_EVIDENCE_MAX_BYTES = 16 * 1024;

const time = z.number().int();
const LISTS = ['failed_requests', 'errors', 'console', 'navigation'] as const;
type ListName = (typeof LISTS)[number];

export const workEvidenceSchema = z.object({
  /** The browser's clock when the report was sent, epoch ms; each entry's `t` is on that clock. */
  captured_at: time,
  failed_requests: z.array(
    z.object({
      t: time,
      method: z.string(),
      /** Every query value masked (`?q=*`). */
      url: z.string(),
      /** Null when no answer came; `error` then says so. */
      status: z.number().int().nullable(),
      error: z.string().nullable(),
      ms: z.number(),
    }),
  ),
  errors: z.array(
    z.object({
      t: time,
      kind: z.enum(['error', 'rejection']),
      name: z.string(),
      message: z.string(),
      /** Innermost first; a mapped frame reads `at fn (src/file.ts:12:5)`. */
      stack: z.array(z.string()),
      /** How many of `stack`'s lines a source map resolved. */
      mapped_frames: z.number().int(),
    }),
  ),
  console: z.array(
    z.object({
      t: time,
      level: z.enum(['log', 'info', 'warn', 'error', 'debug']),
      text: z.string(),
    }),
  ),
  navigation: z.array(
    z.object({ t: time, kind: z.enum(['push', 'replace', 'pop', 'hash']), url: z.string() }),
  ),
  /** Per kind, what the widget's buffers or the stored 64 KB cap let go. */
  dropped: z
    .object({ console: z.number(), network: z.number(), error: z.number(), navigation: z.number() })
    .partial(),
  /** Per list, what this item left out (its list limit, or the 16 KB cap, oldest first). */
  omitted: z.partialRecord(z.enum([...LISTS, 'stack_lines']), z.number().int()),
});
export type WorkEvidence = z.infer<typeof workEvidenceSchema>;

type Entry<T extends EvidenceEntry['type']> = Extract<EvidenceEntry, { type: T }>;

const NO_ANSWER = 'no answer (network error, CORS refusal or abort)';

/** A mapped frame as V8 would have written it from the source. */
function frameText(frame: DetailFrame): string {
  const where = `${frame.file ?? '?'}:${frame.line ?? '?'}:${frame.column ?? '?'}`;
  return frame.function ? `at ${frame.function} (${where})` : `at ${where}`;
}

type Build = Awaited<ReturnType<typeof newestBuildOf>>;

/**
 * The error's frame lines, those a source map resolves replaced by where they are in the source.
 * Frames map through the newest uploaded build of the top frame that has one, with the error
 * groups' own symbolicator (a page runs one build at a time). `builds` remembers each file's
 * answer for the ticket's other errors: their frames mostly name the same few scripts.
 */
async function mappedStack(
  db: Db,
  symbolicator: Symbolicator | undefined,
  workspaceId: string,
  stack: string,
  builds: Map<string, Promise<Build>>,
): Promise<{ lines: string[]; mapped: number; cut: number }> {
  const all = stackLines(stack);
  const lines = all.slice(0, WORK_EVIDENCE_LIMITS.stackLines);
  const cut = all.length - lines.length;
  const frames = lines.flatMap((line) => (line.frame ? [line.frame] : []));
  let build: Build;
  for (const file of symbolicator ? new Set(frames.map((frame) => frame.file!)) : []) {
    let pending = builds.get(file);
    if (!pending) builds.set(file, (pending = newestBuildOf(db, workspaceId, file)));
    build = await pending;
    if (build) break;
  }
  if (!symbolicator || !build) return { lines: lines.map((line) => line.text), mapped: 0, cut };
  const detail = await symbolicator.symbolicate(workspaceId, { ...build, frames });
  const resolved = detail.frames ?? [];
  let at = 0;
  let mapped = 0;
  const out = lines.map((line) => {
    if (!line.frame) return line.text;
    const frame = resolved[at++];
    if (!frame?.minified) return line.text;
    mapped++;
    return frameText(frame);
  });
  return { lines: out, mapped, cut };
}

/** The last `limit` of a list, and how many went. */
function last<T>(list: readonly T[], limit: number): [T[], number] {
  const kept = list.slice(Math.max(0, list.length - limit));
  return [kept, list.length - kept.length];
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * The ticket's evidence for a work item, or undefined when it has none. Everything was scrubbed
 * when stored; the strings go through scrubText once more (cheap), which also covers what source
 * maps added (file paths, function names).
 */
export async function workEvidence(
  db: Db,
  ticket: { id: string; workspace_id: string },
  options: { symbolicator?: Symbolicator; rules?: ScrubRules } = {},
): Promise<WorkEvidence | undefined> {
  const row = await findEvidence(db, ticket.workspace_id, ticket.id);
  if (!row) return undefined;
  const scrub = (text: string) => scrubText(text, options.rules ?? DEFAULT_SCRUB_RULES);
  // Masked again after, as when stored: a sensitive key reads `key=*` like every other.
  const url = (text: string) => maskQuery(scrub(text));
  const of = <T extends EvidenceEntry['type']>(type: T) =>
    row.entries.filter((entry): entry is Entry<T> => entry.type === type);
  const L = WORK_EVIDENCE_LIMITS;
  const omitted: WorkEvidence['omitted'] = {};
  const builds = new Map<string, Promise<Build>>();
  const omit = (list: ListName | 'stack_lines', n: number) => {
    if (n > 0) omitted[list] = (omitted[list] ?? 0) + n;
  };

  const failed = of('network').filter((n) => n.status === 0 || n.status >= 400);
  const [requests, requestsCut] = last(failed, L.failedRequests);
  const [errors, errorsCut] = last(of('error'), L.errors);
  const [consoleLines, consoleCut] = last(of('console'), L.console);
  const [routes, routesCut] = last(of('navigation'), L.navigation);
  omit('failed_requests', requestsCut);
  omit('errors', errorsCut);
  omit('console', consoleCut);
  omit('navigation', routesCut);

  const evidence: WorkEvidence = {
    captured_at: row.captured_at.getTime(),
    failed_requests: requests.map((n) => ({
      t: n.t,
      method: scrub(n.method),
      url: url(n.url),
      status: n.status === 0 ? null : n.status,
      error: n.status === 0 ? NO_ANSWER : null,
      ms: n.ms,
    })),
    errors: await Promise.all(
      errors.map(async (e) => {
        const stack = await mappedStack(
          db,
          options.symbolicator,
          ticket.workspace_id,
          e.stack,
          builds,
        );
        omit('stack_lines', stack.cut);
        return {
          t: e.t,
          kind: e.kind,
          name: scrub(e.name),
          message: scrub(e.message),
          stack: stack.lines.map(scrub),
          mapped_frames: stack.mapped,
        };
      }),
    ),
    console: consoleLines.map((c) => ({ t: c.t, level: c.level, text: scrub(c.text) })),
    navigation: routes.map((n) => ({ t: n.t, kind: n.kind, url: url(n.url) })),
    dropped: row.dropped,
    omitted,
  };
  return capped(evidence);
}

/**
 * Within WORK_EVIDENCE_MAX_BYTES: the oldest entries go first, console lines and routes before
 * requests and errors (they say the least about a fault), each counted in `omitted`.
 */
function capped(evidence: WorkEvidence): WorkEvidence {
  const order: ListName[] = ['console', 'navigation', 'failed_requests', 'errors'];
  // Room for `omitted` to grow by a few counts while cutting.
  const limit = WORK_EVIDENCE_MAX_BYTES - 120;
  let size = bytes(evidence);
  for (const list of order) {
    const entries = evidence[list] as unknown[];
    while (size > limit && entries.length > 0) {
      size -= bytes(entries.shift()) + (entries.length > 0 ? 1 : 0);
      evidence.omitted[list] = (evidence.omitted[list] ?? 0) + 1;
    }
  }
  return evidence;
}

/** A ticket as a work item's `feedback` (PROTOCOL.md): its context, and its evidence if any. */
export type WorkTicket = TicketContext & { evidence?: WorkEvidence };

export async function workTicket(
  db: Db,
  ticket: Feedback,
  options: { symbolicator?: Symbolicator; rules?: ScrubRules } = {},
): Promise<WorkTicket> {
  const [context, evidence] = await Promise.all([
    ticketContext(db, ticket),
    workEvidence(db, ticket, options),
  ]);
  return evidence ? { ...context, evidence } : context;
}
