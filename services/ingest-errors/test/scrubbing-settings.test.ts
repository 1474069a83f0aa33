import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceScrubbing } from '@ferry/db';
import { createWorkspace } from '@ferry/testing';
import { startIngestService, type IngestService } from './support/sdk-service.js';

/**
 * A workspace's own scrubbing (Settings > Error reporting, issue 41) on the stored rows: its extra
 * keys are filtered and its safe fields kept on /ingest/errors and Sentry's envelope, and the
 * user's IP (user.ip_address, proxy headers, a context's ip_address) is filtered unless the
 * workspace keeps it.
 */
const IP = '203.0.113.77';
const IBAN = 'DE89-SECRET-IBAN';
const TENANT_SECRET = 'SECRET-TENANT-HEADER';

describe('a workspace’s scrubbing settings on ingest', () => {
  let service: IngestService;

  beforeAll(async () => {
    service = await startIngestService();
  });
  afterAll(async () => {
    await service.close();
  });

  const workspaceWith = (scrubbing?: Partial<WorkspaceScrubbing>) =>
    createWorkspace(service.ctx.db, {
      settings: scrubbing
        ? { scrubbing: { extra_keys: [], safe_fields: [], keep_ip: false, ...scrubbing } }
        : {},
    });

  /** The one stored occurrence's context and detail. */
  async function stored(workspaceId: string) {
    await service.waitForOccurrences(workspaceId, 1);
    return service.ctx.db
      .selectFrom('error_occurrences')
      .select(['context', 'detail'])
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
  }

  async function sendNative(publicKey: string): Promise<void> {
    const response = await fetch(`${service.url}/ingest/errors`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Service-Tenant': publicKey },
      body: JSON.stringify({
        error_class: 'PaymentFailed',
        message: 'declined',
        context: {
          customer_iban: IBAN,
          session_country: 'DE',
          session: 'SECRET-SESSION',
          client: { ip_address: IP },
        },
      }),
    });
    expect(response.status).toBe(202);
  }

  async function sendEnvelope(publicKey: string): Promise<void> {
    const event = {
      event_id: crypto.randomUUID().replaceAll('-', ''),
      exception: { values: [{ type: 'PaymentFailed', value: 'declined' }] },
      extra: { customer_iban: IBAN, session_country: 'DE' },
      user: { id: 'u1', email: 'a@shop.test', ip_address: IP },
      request: {
        url: 'https://shop.test/pay',
        method: 'POST',
        headers: {
          'X-Tenant-Secret': TENANT_SECRET,
          'X-Forwarded-For': `${IP}, 10.0.0.1`,
          'X-Real-Ip': IP,
          Forwarded: `for=${IP};proto=https`,
          Accept: 'text/html',
        },
      },
    };
    const body = `${JSON.stringify({ event_id: event.event_id })}\n${JSON.stringify({ type: 'event' })}\n${JSON.stringify(event)}\n`;
    const response = await fetch(`${service.url}/api/1/envelope/?sentry_key=${publicKey}`, {
      method: 'POST',
      body,
    });
    expect(response.status).toBe(200);
  }

  it('/ingest/errors: an extra key is filtered, a safe field kept, the IP filtered', async () => {
    const ws = await workspaceWith({ extra_keys: ['iban'], safe_fields: ['session_country'] });
    await sendNative(ws.public_key);
    const { context } = await stored(ws.id);
    expect(context).toEqual({
      customer_iban: '[Filtered]',
      session_country: 'DE',
      session: '[Filtered]',
      client: { ip_address: '[Filtered]' },
    });
  });

  it('Sentry envelope: an extra key (context and header) is filtered, a safe field kept, the IP filtered by default', async () => {
    const ws = await workspaceWith({
      extra_keys: ['iban', 'x-tenant-secret'],
      safe_fields: ['session_country'],
    });
    await sendEnvelope(ws.public_key);
    const row = await stored(ws.id);
    expect(row.context).toEqual({ customer_iban: '[Filtered]', session_country: 'DE' });
    const detail = row.detail as {
      user: Record<string, string>;
      request: { headers: [string, string][] };
    };
    expect(detail.user).toEqual({ id: 'u1', email: 'a@shop.test', ip_address: '[Filtered]' });
    expect(detail.request.headers).toEqual([
      ['X-Tenant-Secret', '[Filtered]'],
      ['X-Forwarded-For', '[Filtered]'],
      ['X-Real-Ip', '[Filtered]'],
      ['Forwarded', '[Filtered]'],
      ['Accept', 'text/html'],
    ]);
    expect(JSON.stringify(row)).not.toMatch(new RegExp(`${IP}|${IBAN}|${TENANT_SECRET}`));
  });

  it('a workspace that never saved its settings gets the defaults: the IP filtered', async () => {
    const ws = await workspaceWith();
    await sendEnvelope(ws.public_key);
    const row = await stored(ws.id);
    expect(JSON.stringify(row)).not.toContain(IP);
    // Without the workspace's words and safe fields: the IBAN passes, session_country ("session")
    // does not: the other workspaces above kept it only as their safe field.
    expect(row.context).toEqual({ customer_iban: IBAN, session_country: '[Filtered]' });
  });

  it('keep_ip: the user’s IP and the proxy headers are stored as sent', async () => {
    const ws = await workspaceWith({ keep_ip: true });
    await sendEnvelope(ws.public_key);
    const detail = (await stored(ws.id)).detail as {
      user: Record<string, string>;
      request: { headers: [string, string][] };
    };
    expect(detail.user.ip_address).toBe(IP);
    expect(detail.request.headers).toEqual(
      expect.arrayContaining([
        ['X-Forwarded-For', `${IP}, 10.0.0.1`],
        ['X-Real-Ip', IP],
        ['Forwarded', `for=${IP};proto=https`],
      ]),
    );

    const native = await workspaceWith({ keep_ip: true });
    await sendNative(native.public_key);
    expect((await stored(native.id)).context).toMatchObject({ client: { ip_address: IP } });
  });
});
