import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken, createFeedback, createWorkspace } from '@ferry/testing';
import { dispatchWorld, type DispatchWorld } from './support/world.js';

/** GET /api/v1/repos and POST /api/v1/feedback/:id/dispatch: DESIGN.md's codes, every refusal. */
describe('dispatch API', () => {
  let world: DispatchWorld;

  beforeAll(async () => {
    // No worker: these tests look at what the API writes, not at the flow.
    world = await dispatchWorld({ worker: false });
  });
  afterAll(() => world.close());

  const get = (path: string, token?: string) =>
    fetch(`${world.app.url}${path}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });

  it('lists the repositories with dispatch_ready', async () => {
    const res = await get('/api/v1/repos', world.readToken);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { repos: Record<string, unknown>[] };
    expect(body.repos).toEqual([
      {
        id: world.docs.id,
        full_name: 'acme/docs',
        default_branch: 'trunk',
        linked: true,
        enabled: false,
        dispatch_ready: false,
      },
      {
        id: world.shop.id,
        full_name: 'acme/shop',
        default_branch: 'main',
        linked: true,
        enabled: true,
        dispatch_ready: true,
      },
    ]);
  });

  it('answers 401 without or with a bad token', async () => {
    const none = await get('/api/v1/repos');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const bad = await world.dispatch('fbk_x', world.shop.id, 'fry_nope');
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_token');
  });

  it('answers 403 insufficient_scope to a read-only token', async () => {
    const ticket = await world.fileTicket();
    const res = await world.dispatch(ticket.id, world.shop.id, world.readToken);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'insufficient_scope',
    );
  });

  it('answers 404 for unknown and other-workspace tickets and repos', async () => {
    const ticket = await world.fileTicket();
    const other = await createWorkspace(world.ctx.db);
    const theirs = await createFeedback(world.ctx.db, other);
    for (const [feedbackId, repoId] of [
      ['fbk_00000000000000000000000000', world.shop.id],
      ['junk', world.shop.id],
      [theirs.id, world.shop.id],
      [ticket.id, 'rep_00000000000000000000000000'],
      [ticket.id, 'not-an-id'],
    ] as const) {
      const res = await world.dispatch(feedbackId, repoId);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
    // Their token cannot reach our ticket either.
    const theirToken = (await createApiToken(world.ctx.db, other)).raw;
    expect((await world.dispatch(ticket.id, world.shop.id, theirToken)).status).toBe(404);
  });

  it('answers 400 to a body that is not JSON and 422 naming the field to a bad one', async () => {
    const ticket = await world.fileTicket();
    const url = `${world.app.url}/api/v1/feedback/${ticket.id}/dispatch`;
    const headers = { authorization: `Bearer ${world.writeToken}` };
    const notJson = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{"repo":',
    });
    expect(notJson.status).toBe(400);
    const noType = await fetch(url, { method: 'POST', headers, body: 'repo=x' });
    expect(noType.status).toBe(400);
    for (const body of [{}, { repo: 42 }, { repo: '' }, []]) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(422);
      const json = (await res.json()) as { error: { code: string; message: string } };
      expect(json.error.code).toBe('validation_failed');
      expect(json.error.message).toMatch(/repo|JSON object/);
    }
  });

  it('answers 422 repo_not_ready for a repo that is linked but not enabled', async () => {
    const ticket = await world.fileTicket();
    const res = await world.dispatch(ticket.id, world.docs.id);
    expect(res.status).toBe(422);
    const json = (await res.json()) as { error: { code: string; message: string } };
    expect(json.error.code).toBe('repo_not_ready');
    expect(json.error.message).toContain('acme/docs');
  });

  it('answers 202 with the dispatch, and 409 to one more while it is in flight', async () => {
    const ticket = await world.fileTicket();
    const res = await world.dispatch(ticket.id, world.shop.id);
    expect(res.status).toBe(202);
    const dispatch = (await res.json()) as Record<string, unknown>;
    expect(dispatch).toMatchObject({
      repo_id: world.shop.id,
      status: 'queued',
      task_state: null,
      issue_url: null,
      pr_url: null,
      error: null,
    });
    expect(String(dispatch.id)).toMatch(/^dsp_/);
    const again = await world.dispatch(ticket.id, world.shop.id);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe(
      'dispatch_in_flight',
    );
    // The outbox holds exactly one dispatch_requested event for it.
    const events = await world.ctx.db
      .selectFrom('outbox')
      .select('payload')
      .where('type', '=', 'dispatch_requested')
      .execute();
    expect(
      events.filter((e) => JSON.stringify(e.payload).includes(String(dispatch.id))),
    ).toHaveLength(1);
  });

  it('lets exactly one of 20 concurrent dispatches of one ticket to one repo through', async () => {
    const ticket = await world.fileTicket();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => world.dispatch(ticket.id, world.shop.id)),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const rows = await world.ctx.db
      .selectFrom('dispatches')
      .select('id')
      .where('feedback_id', '=', ticket.id)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('refuses an API dispatch with 422 no_dispatch_identity when none is designated', async () => {
    await world.ctx.db
      .updateTable('workspaces')
      .set({ dispatch_member_id: null })
      .where('id', '=', world.workspace.id)
      .execute();
    try {
      const ticket = await world.fileTicket();
      const res = await world.dispatch(ticket.id, world.shop.id);
      expect(res.status).toBe(422);
      const json = (await res.json()) as { error: { code: string; message: string } };
      expect(json.error.code).toBe('no_dispatch_identity');
      expect(json.error.message).toMatch(/dispatch identity/);
    } finally {
      await world.ctx.db
        .updateTable('workspaces')
        .set({ dispatch_member_id: world.ada.id })
        .where('id', '=', world.workspace.id)
        .execute();
    }
  });
});
