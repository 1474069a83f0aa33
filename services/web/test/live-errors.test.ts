import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '@ferry/db';
import {
  createErrorGroup,
  createMember,
  createTestContext,
  createWorkspace,
  waitUntil,
  type TestContext,
} from '@ferry/testing';
import type { ErrorGroupFilter, WrittenGroup } from '@ferry/workspace';
import {
  createLiveErrors,
  type ErrorsNewEvent,
  type LiveErrors,
  type WatchingSocket,
} from '../src/features/errors/live.js';

/**
 * The web side of the live Errors list (live-errors.ts), against the real database: what each
 * open page is told of announced occurrences (its filter's, at most once an interval however
 * many announcements), and that the database, not the channel, decides who hears it.
 */
describe('live Errors list delivery', () => {
  let ctx: TestContext;
  const running: LiveErrors[] = [];

  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    for (const live of running) live.close();
    await ctx?.close();
  });

  interface FakeSocket extends WatchingSocket {
    heard: ErrorsNewEvent[];
    evicted: boolean;
  }

  function socket(userId: string, workspaceId: string, filter: ErrorGroupFilter): FakeSocket {
    const fake: FakeSocket = {
      userId,
      watch: { workspaceId, filter },
      heard: [],
      evicted: false,
      emit: (_event, payload) => fake.heard.push(payload),
      evict: () => {
        fake.evicted = true;
        return Promise.resolve();
      },
    };
    return fake;
  }

  function start(sockets: Map<string, FakeSocket[]>, intervalMs: number) {
    const errors: unknown[] = [];
    const live = createLiveErrors({
      db: ctx.db,
      intervalMs,
      onError: (err) => errors.push(err),
      // Evicted sockets leave the channel, as socket.leave does.
      watchers: (workspaceId) => (sockets.get(workspaceId) ?? []).filter((s) => !s.evicted),
    });
    running.push(live);
    return { live, errors };
  }

  const total = (s: FakeSocket) => s.heard.reduce((sum, e) => sum + e.occurrences, 0);
  const written = (
    workspace: Pick<Workspace, 'id'>,
    groups: WrittenGroup[],
  ): { workspaces: { workspaceId: string; groups: WrittenGroup[] }[] } => ({
    workspaces: [{ workspaceId: workspace.id, groups }],
  });

  it('tells each page what its filter shows', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws);
    const [open, ignored, fromJs] = await Promise.all([
      createErrorGroup(ctx.db, ws, {
        error_class: 'Stripe::CardError',
        environments: ['production'],
      }),
      createErrorGroup(ctx.db, ws, {
        error_class: 'Noise',
        status: 'ignored',
        environments: ['production'],
      }),
      createErrorGroup(ctx.db, ws, {
        error_class: 'TypeError',
        source: 'js',
        environments: ['staging'],
      }),
    ]);
    const pages = {
      all: socket(member.user_id, ws.id, {}),
      unresolved: socket(member.user_id, ws.id, { status: 'unresolved' }),
      ignored: socket(member.user_id, ws.id, { status: 'ignored' }),
      production: socket(member.user_id, ws.id, { environment: 'production' }),
      js: socket(member.user_id, ws.id, { source: 'js' }),
      search: socket(member.user_id, ws.id, { q: 'card' }),
    };
    const { live, errors } = start(new Map([[ws.id, Object.values(pages)]]), 60_000);
    live.announced(
      written(ws, [
        { id: open.id, n: 3, created: true, environments: [['production', 2]] },
        { id: ignored.id, n: 5, created: false, environments: [['production', 5]] },
        { id: fromJs.id, n: 1, created: false, environments: [['staging', 1]] },
      ]),
    );
    await waitUntil(
      () => Object.values(pages).every((p) => p.heard.length > 0) || errors.length > 0,
      'every page to hear of the announcement',
    );
    expect(errors).toEqual([]);
    const heard = Object.fromEntries(
      Object.entries(pages).map(([name, p]) => [
        name,
        p.heard.map((e) => ({ occurrences: e.occurrences, newGroups: e.newGroups })),
      ]),
    );
    expect(heard).toEqual({
      all: [{ occurrences: 9, newGroups: 1 }],
      unresolved: [{ occurrences: 4, newGroups: 1 }],
      ignored: [{ occurrences: 5, newGroups: 0 }],
      production: [{ occurrences: 7, newGroups: 1 }],
      js: [{ occurrences: 1, newGroups: 0 }],
      search: [{ occurrences: 3, newGroups: 1 }],
    });
    expect(pages.all.heard[0]!.workspaceId).toBe(ws.id);
  });

  it('sums a storm into one event an interval', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws);
    const group = await createErrorGroup(ctx.db, ws);
    const page = socket(member.user_id, ws.id, { status: 'unresolved' });
    const { live } = start(new Map([[ws.id, [page]]]), 500);
    // 6,000 reports in 600 batches of 10, all at once: at most the first batch, then the rest.
    for (let i = 0; i < 600; i += 1) {
      live.announced(written(ws, [{ id: group.id, n: 10, created: false, environments: [] }]));
    }
    await waitUntil(() => total(page) === 6_000, 'all 6,000 occurrences to be told');
    expect(page.heard.length).toBeLessThanOrEqual(2);
  });

  it('tells only those who may read the workspace’s errors, and evicts the rest', async () => {
    const ws = await createWorkspace(ctx.db);
    const other = await createWorkspace(ctx.db);
    const [member, guest, gone, outsider] = await Promise.all([
      createMember(ctx.db, ws),
      createMember(ctx.db, ws, { role: 'guest' }),
      createMember(ctx.db, ws, { left: true }),
      createMember(ctx.db, other),
    ]);
    const group = await createErrorGroup(ctx.db, ws);
    const otherGroup = await createErrorGroup(ctx.db, other);
    const reader = socket(member.user_id, ws.id, {});
    // Sockets that somehow sit in the channel: the delivery re-checks every one in the database.
    const sneaky = [guest, gone, outsider].map((m) => socket(m.user_id, ws.id, {}));
    const outsiders = socket(outsider.user_id, other.id, {});
    const { live } = start(
      new Map([
        [ws.id, [reader, ...sneaky]],
        [other.id, [outsiders]],
      ]),
      60_000,
    );
    live.announced(written(ws, [{ id: group.id, n: 2, created: false, environments: [] }]));
    // A group id of another workspace named under this one counts for nobody.
    live.announced({
      workspaces: [
        {
          workspaceId: other.id,
          groups: [
            { id: otherGroup.id, n: 1, created: false, environments: [] },
            { id: group.id, n: 50, created: false, environments: [] },
          ],
        },
      ],
    });
    await waitUntil(
      () => reader.heard.length > 0 && outsiders.heard.length > 0,
      'the reader and the other workspace’s member to hear of their own',
    );
    expect(reader.heard).toEqual([{ workspaceId: ws.id, occurrences: 2, newGroups: 0 }]);
    expect(outsiders.heard).toEqual([{ workspaceId: other.id, occurrences: 1, newGroups: 0 }]);
    for (const s of sneaky)
      expect({ heard: s.heard, evicted: s.evicted }).toEqual({ heard: [], evicted: true });
  });
});
