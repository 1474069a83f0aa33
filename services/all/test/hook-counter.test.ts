import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '@ferry/core';
import { createMember, createRoom, createWorkspace, FormClient, Receiver } from '@ferry/testing';
import { createOutgoingHook } from '@ferry/workspace';
import { startFerry, type FerryHarness } from './support/ferry.js';

/**
 * #28 defect 8: the hook page's failure counter is current right after "Send test event" (not a
 * click behind), and stops at the count that disabled the hook.
 */
describe("an outgoing hook's failure counter", () => {
  let ferry: FerryHarness;
  let receiver: Receiver;
  beforeAll(async () => {
    ferry = await startFerry({
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      WEBHOOK_DISABLE_AFTER_FAILURES: '2',
      WEBHOOK_TIMEOUT_MS: '3000',
    });
    receiver = await new Receiver().start();
    receiver.reply({ status: 500, body: 'down' });
  });
  afterAll(async () => {
    await receiver?.close();
    await ferry?.close();
  });

  it('is current after each test event and stays at the limit once the hook is disabled', async () => {
    const { db } = ferry.ctx;
    const workspace = await createWorkspace(db);
    const admin = await createMember(db, workspace, { role: 'admin' });
    const room = await createRoom(db, workspace, { members: [admin] });
    const { hook } = await createOutgoingHook(db, new SecretBox(ferry.ctx.config.APP_SECRET), {
      workspaceId: workspace.id,
      roomId: room.id,
      targetUrl: `${receiver.url}/hook`,
      createdBy: admin.id,
    });
    const client = new FormClient(ferry.url);
    await client.signIn(admin.user.email, admin.user.password);
    const page = `/w/${workspace.id}/${workspace.slug}/rooms/${room.id}/settings/webhooks/outgoing/${hook.id}`;
    const counter = (text: string) =>
      /data-testid="consecutive-failures">(\d+)</.exec(text)?.[1] ?? 'missing';

    for (const expected of ['1', '2', '2', '2']) {
      const sent = await client.post(`${page}/test`, {}, { csrfFrom: page });
      expect(sent.status).toBe(303);
      // The page the redirect leads to, loaded at once: the attempt is already counted.
      const after = await client.get(sent.location ?? page);
      expect(counter(after.text)).toBe(expected);
    }
    const row = await db
      .selectFrom('outgoing_webhooks')
      .select(['state', 'consecutive_failures'])
      .where('id', '=', hook.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'disabled', consecutive_failures: 2 });
  });
});
