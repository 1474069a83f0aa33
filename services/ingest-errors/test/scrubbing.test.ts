import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  createWorkspace,
  SCRUB_SECRETS as SECRETS,
  secretContext as context,
  secretSentryEvent as sentryEvent,
} from '@ferry/testing';
import { startIngestService, type IngestService } from './support/sdk-service.js';

/**
 * Secrets are scrubbed before anything is queued (issue 41): each sensitive form, in each place a
 * report can carry it, on each path (/ingest/errors, Sentry's envelope and store), is found
 * nowhere in what Postgres keeps: not in the occurrence, not in its group. Everything the pages,
 * the API, alerts, deliveries and agent tickets show is read from those rows.
 */
describe('scrubbing on every path, before anything is stored', () => {
  let service: IngestService;

  beforeAll(async () => {
    service = await startIngestService();
  });

  afterAll(async () => {
    await service.close();
  });

  /** Every stored row of the workspace's errors, as text: what any reader could ever show. */
  async function storedText(workspaceId: string): Promise<string> {
    const { rows } = await sql<{ row: string }>`
      select row_to_json(o)::text as row from error_occurrences o where o.workspace_id = ${workspaceId}
      union all
      select row_to_json(g)::text from error_groups g where g.workspace_id = ${workspaceId}
    `.execute(service.ctx.db);
    return rows.map((r) => r.row).join('\n');
  }

  function expectClean(stored: string): void {
    for (const [form, secret] of Object.entries(SECRETS)) {
      expect({ form, found: stored.includes(secret) }).toEqual({ form, found: false });
    }
    expect(stored).toContain('[Filtered]');
  }

  it('/ingest/errors: context, headers, breadcrumbs, the URL and the message', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const response = await fetch(`${service.url}/ingest/errors`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Service-Tenant': ws.public_key },
      body: JSON.stringify({
        errors: [
          {
            error_class: 'PaymentFailed',
            message: `card ${SECRETS.cardDigits} declined`,
            url: `https://shop.test/pay?session=${SECRETS.cookie}&token=${SECRETS.query}`,
            context,
          },
        ],
      }),
    });
    expect(response.status).toBe(202);
    await service.waitForOccurrences(ws.id, 1);
    const stored = await storedText(ws.id);
    expectClean(stored);
    expect(stored).toMatch(/"amount": ?12/);
  });

  it.each(['envelope', 'store'] as const)(
    'Sentry %s: extra, tags, user, contexts, request (URL, query, headers), breadcrumbs, code and the exception value',
    async (path) => {
      const ws = await createWorkspace(service.ctx.db);
      const event = { event_id: crypto.randomUUID().replaceAll('-', ''), ...sentryEvent };
      const body =
        path === 'envelope'
          ? `${JSON.stringify({ event_id: event.event_id })}\n${JSON.stringify({ type: 'event' })}\n${JSON.stringify(event)}\n`
          : JSON.stringify(event);
      const response = await fetch(`${service.url}/api/1/${path}/?sentry_key=${ws.public_key}`, {
        method: 'POST',
        body,
      });
      expect(response.status).toBe(200);
      await service.waitForOccurrences(ws.id, 1);
      const stored = await storedText(ws.id);
      expectClean(stored);
      expect(stored).toMatch(/"plan": ?"pro"/);
      // The structured detail was kept, only its secrets filtered.
      expect(stored).toMatch(/"category": ?"http"/);
      expect(stored).toMatch(/"name": ?"Chrome"/);
    },
  );
});
