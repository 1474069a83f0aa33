import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MINIFIED_APP_URL,
  THROW_LINE,
  buildMinifiedApp,
  createFeedback,
  createTestContext,
  createWorkspace,
  minifiedAppStack,
  storeMinifiedApp,
  type MinifiedApp,
  type TestContext,
} from '@ferry/testing';
import {
  WORK_EVIDENCE_MAX_BYTES,
  createSymbolicator,
  insertEvidence,
  prepareEvidence,
  workEvidenceSchema,
  workTicket,
  type EvidenceInput,
} from '../src/index.js';

/** Issue 45, part 4: what a local agent's work item carries of a widget ticket's evidence. */
describe('a work item’s evidence', () => {
  let ctx: TestContext;
  let app: MinifiedApp;
  const now = Date.now();
  beforeAll(async () => {
    [ctx, app] = await Promise.all([createTestContext(), buildMinifiedApp()]);
  });
  afterAll(() => ctx.close());

  const timeline = (overrides: Partial<EvidenceInput>): EvidenceInput => ({
    captured_at: now,
    console: [],
    network: [],
    errors: [],
    navigation: [],
    dropped: {},
    ...overrides,
  });

  async function ticketWith(input: EvidenceInput | null, maps = false) {
    const workspace = await createWorkspace(ctx.db);
    const feedback = await createFeedback(ctx.db, workspace);
    if (input) await insertEvidence(ctx.db, feedback, prepareEvidence(input));
    if (maps) await storeMinifiedApp(ctx.db, workspace.id, app);
    return feedback;
  }

  it('holds failed requests, mapped errors, the last console lines and routes, newest last', async () => {
    const stack = await minifiedAppStack(app);
    const feedback = await ticketWith(
      timeline({
        console: Array.from({ length: 40 }, (_, i) => ({
          t: now - 40_000 + i * 1000,
          level: i === 39 ? ('error' as const) : ('log' as const),
          text: `line ${i} card 4111 1111 1111 1111`,
        })),
        network: Array.from({ length: 25 }, (_, i) => ({
          t: now - 30_000 + i * 1000,
          kind: 'fetch' as const,
          method: 'post',
          url: `https://shop.example.test/api/pay?id=${i}&token=abc`,
          status: i < 3 ? 200 : i === 24 ? 0 : 500,
          ms: 12,
          size: null,
        })),
        errors: [
          { t: now - 2_000, kind: 'error', name: 'TypeError', message: 'price', stack },
          {
            t: now - 1_000,
            kind: 'rejection',
            name: 'Error',
            message: 'elsewhere',
            stack: 'Error: elsewhere\n    at f (https://cdn.example.test/lib.js:1:2)',
          },
        ],
        navigation: Array.from({ length: 12 }, (_, i) => ({
          t: now - 50_000 + i,
          kind: 'push' as const,
          url: `/step/${i}`,
        })),
        dropped: { console: 7 },
      }),
      true,
    );
    const symbolicator = createSymbolicator(ctx.db);
    const work = await workTicket(ctx.db, feedback, { symbolicator });
    const evidence = workEvidenceSchema.parse(work.evidence);

    expect(evidence.captured_at).toBe(now);
    // 22 failed (500s and one without an answer); the last 20 kept, the newest last.
    expect(evidence.failed_requests).toHaveLength(20);
    expect(evidence.failed_requests.at(-1)).toEqual({
      t: now - 6_000,
      method: 'POST',
      url: 'https://shop.example.test/api/pay?id=*&token=*',
      status: null,
      error: 'no answer (network error, CORS refusal or abort)',
      ms: 12,
    });
    expect(evidence.failed_requests[0]!.status).toBe(500);
    expect(evidence.console).toHaveLength(30);
    expect(evidence.console.at(-1)).toEqual({
      t: now - 1_000,
      level: 'error',
      text: 'line 39 card [Filtered]',
    });
    expect(evidence.navigation.map((n) => n.url)).toEqual(
      Array.from({ length: 10 }, (_, i) => `/step/${i + 2}`),
    );
    expect(evidence.dropped).toEqual({ console: 7 });
    expect(evidence.omitted).toEqual({ failed_requests: 2, console: 10, navigation: 2 });

    // The page's own bundle maps through the uploaded map (the error groups' symbolicator)...
    const [mapped, unmapped] = evidence.errors;
    expect(mapped!.mapped_frames).toBe(2);
    expect(mapped!.stack[0]).toBe(`at parsePrice (src/money.ts:${THROW_LINE}:11)`);
    expect(mapped!.stack[1]).toMatch(/^at checkout \(src\/checkout\.ts:4:\d+\)$/);
    expect(stack).toContain(MINIFIED_APP_URL);
    // ...a script nobody uploaded stays as the browser wrote it.
    expect(unmapped).toMatchObject({
      kind: 'rejection',
      stack: ['at f (https://cdn.example.test/lib.js:1:2)'],
      mapped_frames: 0,
    });
    // Without an uploaded map, the stack is the browser's.
    const bare = await ticketWith(
      timeline({ errors: [{ t: now, kind: 'error', name: 'TypeError', message: 'x', stack }] }),
    );
    const plain = await workTicket(ctx.db, bare, { symbolicator });
    expect(plain.evidence!.errors[0]!.stack[0]).toMatch(
      /^at n \(https:\/\/shop\.example\.test\/assets\/app\.min\.js:2:\d+\)$/,
    );
  });

  it('stays within 16 KB, cutting console lines and routes before requests and errors', async () => {
    const long = (i: number) => `${i} ${'x'.repeat(480)}`;
    const feedback = await ticketWith(
      timeline({
        console: Array.from({ length: 40 }, (_, i) => ({
          t: now - 40_000 + i,
          level: 'warn' as const,
          text: long(i),
        })),
        errors: Array.from({ length: 4 }, (_, i) => ({
          t: now - 100 + i,
          kind: 'error' as const,
          name: 'Error',
          message: 'm'.repeat(1_500),
          stack: `Error: m\n    at f (https://x.test/a.js:${i + 1}:1)`,
        })),
      }),
    );
    const work = await workTicket(ctx.db, feedback);
    const evidence = work.evidence!;
    expect(Buffer.byteLength(JSON.stringify(evidence))).toBeLessThanOrEqual(
      WORK_EVIDENCE_MAX_BYTES,
    );
    expect(evidence.errors).toHaveLength(4);
    expect(evidence.omitted.console).toBeGreaterThan(10);
    expect(evidence.console.length + evidence.omitted.console!).toBe(40);
    // What was kept is the newest.
    expect(evidence.console.at(-1)!.text).toBe(long(39));
  });

  it('is absent when the ticket has no evidence', async () => {
    const work = await workTicket(ctx.db, await ticketWith(null));
    expect(work).not.toHaveProperty('evidence');
    expect(work.note).toBe('Clicking Pay does nothing on Safari.');
  });
});
