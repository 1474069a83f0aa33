import { DEFAULT_SCRUB_RULES, maskQuery, scrubText, truncate, type ScrubRules } from '@ferry/core';
import type { Db, EvidenceEntry, EvidenceKind, FeedbackEvidence } from '@ferry/db';
import { z } from 'zod';

/**
 * A widget ticket's evidence (issue 45): what the page was doing in the minutes before the report
 * (console lines, fetch/XHR requests, the page's own uncaught errors, SPA route changes), sent
 * with the ticket when the workspace turned capture on and the person left it attached.
 * Checked by `evidenceSchema` at the edge, scrubbed with the error reports' rules (@ferry/core's
 * scrubber with the workspace's own keys), merged into one timeline and cut to 64 KB, oldest
 * entries first, each cut counted in `dropped`. The widget scrubs before sending too; this is
 * the step that holds whatever a client sends.
 */

/** What one ticket may store: the JSON of its timeline, in bytes. */
export const EVIDENCE_MAX_BYTES = 64 * 1024;
/** Per kind, what the widget's ring buffers keep (and the most the edge accepts). */
export const EVIDENCE_MAX_ENTRIES = 50;

export const EVIDENCE_LIMITS = {
  text: 500,
  url: 2_000,
  method: 16,
  errorName: 200,
  errorMessage: 2_000,
  stack: 8_000,
} as const;

const text = (max: number) =>
  z.string('Must be text.').max(max, `At most ${max.toLocaleString('en-US')} characters.`);
/** The browser's clock, epoch milliseconds (after 2001, before 2286). */
const time = z
  .number('Must be a time in epoch milliseconds.')
  .min(1e12, 'Must be a time in epoch milliseconds.')
  .max(1e13, 'Must be a time in epoch milliseconds.');
const count = z.number('Must be a count.').int('Must be a count.').min(0).max(1_000_000_000);
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item, 'Must be a list.')
    .max(EVIDENCE_MAX_ENTRIES, `At most ${EVIDENCE_MAX_ENTRIES} entries.`)
    .default([]);

export const evidenceSchema = z.object(
  {
    captured_at: time,
    console: list(
      z.object({
        t: time,
        level: z.enum(['log', 'info', 'warn', 'error', 'debug'], 'Must be a console level.'),
        text: text(EVIDENCE_LIMITS.text),
      }),
    ),
    network: list(
      z.object({
        t: time,
        kind: z.enum(['fetch', 'xhr'], 'Must be fetch or xhr.'),
        method: text(EVIDENCE_LIMITS.method),
        url: text(EVIDENCE_LIMITS.url),
        status: z.number('Must be a status.').int('Must be a status.').min(0).max(999),
        ms: z.number('Must be milliseconds.').min(0).max(86_400_000),
        size: count.nullable().default(null),
      }),
    ),
    errors: list(
      z.object({
        t: time,
        kind: z.enum(['error', 'rejection'], 'Must be error or rejection.'),
        name: text(EVIDENCE_LIMITS.errorName),
        message: text(EVIDENCE_LIMITS.errorMessage),
        stack: text(EVIDENCE_LIMITS.stack),
      }),
    ),
    navigation: list(
      z.object({
        t: time,
        kind: z.enum(['push', 'replace', 'pop', 'hash'], 'Must be push, replace, pop or hash.'),
        url: text(EVIDENCE_LIMITS.url),
      }),
    ),
    /** What the widget's ring buffers let go before the person sent the report. */
    dropped: z
      .object(
        { console: count, network: count, errors: count, navigation: count },
        'Must be counts.',
      )
      .partial()
      .default({}),
  },
  'Send the evidence as an object.',
);
export type EvidenceInput = z.infer<typeof evidenceSchema>;

/** Every query value masked (the scrubber's, shared with the widget): a timeline reads by keys. */
export { maskQuery };

/** The row to store: the scrubbed, capped timeline. */
export interface PreparedEvidence {
  entries: EvidenceEntry[];
  dropped: Partial<Record<EvidenceKind, number>>;
  byteSize: number;
  capturedAt: Date;
}

/**
 * Scrubs, merges by time and caps the evidence. Every string goes through scrubText (card
 * numbers, bearer tokens, sensitive query keys, the workspace's own keys); URLs also have every
 * query value masked. `[Filtered]` can be longer than what it replaced, so fields are cut again.
 */
export function prepareEvidence(
  input: EvidenceInput,
  rules: ScrubRules = DEFAULT_SCRUB_RULES,
): PreparedEvidence {
  const clean = (value: string, max: number) => truncate(scrubText(value, rules), max);
  // Masked after scrubbing, so a sensitive key reads `key=*` like every other.
  const url = (value: string) => truncate(maskQuery(scrubText(value, rules)), EVIDENCE_LIMITS.url);
  const L = EVIDENCE_LIMITS;
  const entries: EvidenceEntry[] = [
    ...input.console.map((c): EvidenceEntry => ({
      type: 'console',
      t: c.t,
      level: c.level,
      text: clean(c.text, L.text),
    })),
    ...input.network.map((n): EvidenceEntry => ({
      type: 'network',
      t: n.t,
      kind: n.kind,
      method: clean(n.method, L.method).toUpperCase(),
      url: url(n.url),
      status: n.status,
      ms: Math.round(n.ms),
      size: n.size,
    })),
    ...input.errors.map((e): EvidenceEntry => ({
      type: 'error',
      t: e.t,
      kind: e.kind,
      name: clean(e.name, L.errorName),
      message: clean(e.message, L.errorMessage),
      stack: clean(e.stack, L.stack),
    })),
    ...input.navigation.map((n): EvidenceEntry => ({
      type: 'navigation',
      t: n.t,
      kind: n.kind,
      url: url(n.url),
    })),
  ];
  // Stable by time: entries of one kind keep their order when their times tie.
  entries.sort((a, b) => a.t - b.t);

  const dropped: Partial<Record<EvidenceKind, number>> = {};
  const add = (kind: EvidenceKind, n: number | undefined) => {
    if (n) dropped[kind] = (dropped[kind] ?? 0) + n;
  };
  add('console', input.dropped.console);
  add('network', input.dropped.network);
  add('error', input.dropped.errors);
  add('navigation', input.dropped.navigation);

  // `[` + entries joined by `,` + `]`: drop the oldest until the whole fits.
  const sizes = entries.map((entry) => Buffer.byteLength(JSON.stringify(entry), 'utf8'));
  let total = 2 + sizes.reduce((sum, size) => sum + size, 0) + Math.max(0, entries.length - 1);
  let first = 0;
  while (total > EVIDENCE_MAX_BYTES && first < entries.length) {
    total -= sizes[first]! + (entries.length - first > 1 ? 1 : 0);
    add(entries[first]!.type, 1);
    first += 1;
  }
  const kept = entries.slice(first);
  return {
    entries: kept,
    dropped,
    byteSize: Buffer.byteLength(JSON.stringify(kept), 'utf8'),
    capturedAt: new Date(input.captured_at),
  };
}

/** The widget's feedback body seen for its `evidence` field only: absent or null is none. */
export const evidenceFieldSchema = z.object({ evidence: evidenceSchema.nullish() });

export async function insertEvidence(
  trx: Db,
  feedback: { id: string; workspace_id: string },
  evidence: PreparedEvidence,
): Promise<void> {
  await trx
    .insertInto('feedback_evidence')
    .values({
      feedback_id: feedback.id,
      workspace_id: feedback.workspace_id,
      entries: JSON.stringify(evidence.entries),
      dropped: JSON.stringify(evidence.dropped),
      byte_size: evidence.byteSize,
      captured_at: evidence.capturedAt,
    })
    .execute();
}

/** The ticket's evidence, for the ticket page; undefined when none was attached. */
export async function findEvidence(
  db: Db,
  workspaceId: string,
  feedbackId: string,
): Promise<FeedbackEvidence | undefined> {
  return db
    .selectFrom('feedback_evidence')
    .selectAll()
    .where('feedback_id', '=', feedbackId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}
