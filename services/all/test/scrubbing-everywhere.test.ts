import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { SecretBox } from '@ferry/core';
import {
  createApiToken,
  createMember,
  createRoom,
  createWorkspace,
  FormClient,
  Receiver,
  SCRUB_SECRETS,
  secretSentryEvent,
  waitFor,
  waitUntil,
} from '@ferry/testing';
import { saveErrorAlertRules, validateErrorAlertRules } from '@ferry/workspace';
import { startFerry, type FerryHarness } from './support/ferry.js';

/**
 * Scrubbing, seen from everywhere a secret could leak out (issue 41): a Sentry event carrying
 * each sensitive form in each of its parts is sent to `pnpm start`, and no secret is found in the
 * database rows, the group page, the Errors API, the alert delivered to a webhook and posted to a
 * room, or the ticket "Fix with agent" files for the local agent.
 */
describe('secrets are found nowhere after a Sentry event is accepted', () => {
  let ferry: FerryHarness;
  const receiver = new Receiver();

  beforeAll(async () => {
    ferry = await startFerry({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
    await receiver.start();
  });

  afterAll(async () => {
    await receiver.close();
    await ferry?.close();
  });

  function expectClean(where: string, text: string): void {
    for (const [form, secret] of Object.entries(SCRUB_SECRETS)) {
      expect({ where, form, found: text.includes(secret) }).toEqual({ where, form, found: false });
    }
  }

  it('not in the rows, the page, the API, the alert or the agent’s ticket', async () => {
    const { db } = ferry.ctx;
    const workspace = await createWorkspace(db);
    const owner = await createMember(db, workspace, { role: 'owner' });
    const room = await createRoom(db, workspace, { members: [owner], name: 'alerts' });
    const rules = await validateErrorAlertRules(
      db,
      workspace.id,
      { room_id: room.id, url: `${receiver.url}/alerts`, new_group: true },
      { allowPrivateTargets: true },
    );
    await saveErrorAlertRules(
      db,
      new SecretBox(ferry.ctx.config.APP_SECRET),
      workspace.id,
      rules,
      owner.id,
    );

    const eventId = crypto.randomUUID().replaceAll('-', '');
    const event = { event_id: eventId, platform: 'python', ...secretSentryEvent };
    const envelope = [{ event_id: eventId }, { type: 'event' }, event]
      .map((part) => JSON.stringify(part))
      .join('\n');
    const sent = await fetch(`${ferry.url}/api/1/envelope/?sentry_key=${workspace.public_key}`, {
      method: 'POST',
      body: `${envelope}\n`,
    });
    expect(sent.status).toBe(200);

    const group = await waitFor(
      () =>
        db
          .selectFrom('error_groups')
          .selectAll()
          .where('workspace_id', '=', workspace.id)
          .executeTakeFirst(),
      'the event to be written',
    );
    await waitUntil(() => receiver.requests.length > 0, 'the new-group alert to be delivered');
    await waitUntil(
      async () =>
        (await db.selectFrom('messages').select('id').where('room_id', '=', room.id).execute())
          .length > 0,
      'the alert to be posted in the room',
    );
    expectClean('alert delivery', receiver.requests.map((r) => r.body).join('\n'));

    // The agent's ticket, filed through the API, and what the API and the page show.
    const token = await createApiToken(db, workspace, { scopes: ['tenant:write'] });
    const auth = { authorization: `Bearer ${token.raw}` };
    const filed = await fetch(`${ferry.url}/api/v1/errors/${group.id}/feedback`, {
      method: 'POST',
      headers: auth,
    });
    expect(filed.status).toBe(201);
    const ticket = await filed.text();
    expect(ticket).toContain('[Filtered]');
    // The agent gets the app's frames with their code and the breadcrumbs, all scrubbed.
    expect(ticket).toContain("The app's frames, innermost first, with their code:");
    expect(ticket).toContain('Breadcrumbs (the last 2, oldest first):');
    expectClean('agent ticket', ticket);
    const api = await fetch(`${ferry.url}/api/v1/errors/${group.id}`, { headers: auth });
    const apiText = await api.text();
    // The structured detail came through, secrets filtered.
    expect(apiText).toContain('"breadcrumbs"');
    expectClean('Errors API', apiText);

    const client = new FormClient(ferry.url);
    await client.signIn(owner.user.email, owner.user.password);
    const page = await client.get(`/w/${workspace.id}/${workspace.slug}/errors/${group.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Breadcrumbs');
    expectClean('group page', page.text);

    const { rows } = await sql<{ row: string }>`
      select row_to_json(o)::text as row from error_occurrences o where o.workspace_id = ${workspace.id}
      union all select row_to_json(g)::text from error_groups g where g.workspace_id = ${workspace.id}
      union all select row_to_json(m)::text from messages m where m.workspace_id = ${workspace.id}
      union all select row_to_json(f)::text from feedback f where f.workspace_id = ${workspace.id}
      union all select row_to_json(d)::text from webhook_deliveries d
        join outgoing_webhooks h on h.id = d.hook_id where h.workspace_id = ${workspace.id}`.execute(
      db,
    );
    expect(rows.length).toBeGreaterThan(3);
    expectClean('database rows', rows.map((r) => r.row).join('\n'));
  });
});
