import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import * as Sentry from '@sentry/node';
import { makeSession } from '@sentry/core';
import { createWorkspace, startApp, waitUntil, type RunningApp } from '@ferry/testing';
import { latestOccurrences, listErrorGroups, type OccurrenceDetail } from '@ferry/workspace';
import { startIngestService, type IngestService } from './support/sdk-service.js';

/**
 * The real @sentry/node (from npm) pointed at Ferry's ingest service with a DSN, as a user would:
 * what it sends (envelopes, gzip above 32 KB, sessions) must land on the Errors page, grouped by
 * SPEC.md's rule, and its rate limiting must follow our 429.
 */

class PaymentDeclined extends Error {
  override name = 'PaymentDeclined';
}

/** Two errors raised from the same line with different messages: one group (SPEC.md). */
function decline(card: string): Error {
  return new PaymentDeclined(`card ${card} declined`);
}

const dsnFor = (url: string, publicKey: string): string => {
  const { host } = new URL(url);
  return `http://${publicKey}@${host}/1`;
};

/** A client of its own (not the global one): its own DSN, no global handlers. */
type ClientOptions = ConstructorParameters<typeof Sentry.NodeClient>[0];

function nodeClient(dsn: string, options: Partial<ClientOptions> = {}): Sentry.NodeClient {
  const client = new Sentry.NodeClient({
    dsn,
    release: 'shop@2.0.0',
    environment: 'staging',
    transport: Sentry.makeNodeTransport,
    stackParser: Sentry.defaultStackParser,
    integrations: [],
    ...options,
  });
  client.init();
  return client;
}

describe('@sentry/node against the ingest service', () => {
  let service: IngestService;
  const clients: Sentry.NodeClient[] = [];
  const client = (dsn: string, options: Partial<ClientOptions> = {}) => {
    const made = nodeClient(dsn, options);
    clients.push(made);
    return made;
  };

  beforeAll(async () => {
    service = await startIngestService();
  });

  afterAll(async () => {
    for (const made of clients) await made.close(2_000);
    await Sentry.close(2_000);
    await service.close();
  });

  const answered = (pathPart: string) =>
    service.requests.filter((request) => request.url.includes(pathPart));

  it('captureException, captureMessage and an Express error: on the Errors page, grouped by SPEC.md', async () => {
    const ws = await createWorkspace(service.ctx.db);
    Sentry.init({
      dsn: dsnFor(service.url, ws.public_key),
      release: 'shop@2.0.0',
      environment: 'staging',
      // No handlers on the test process itself; everything else is the SDK's default.
      integrations: (defaults) =>
        defaults.filter(
          (integration) =>
            !['OnUncaughtException', 'OnUnhandledRejection'].includes(integration.name),
        ),
    });
    Sentry.setTag('plan', 'pro');
    Sentry.setUser({ id: 'u_42' });

    Sentry.captureException(decline('4242'));
    Sentry.captureException(decline('1111'));
    Sentry.captureMessage('Nightly export finished late');

    const app = express();
    app.get('/orders/:id', () => {
      throw new TypeError('order.total is undefined');
    });
    Sentry.setupExpressErrorHandler(app);
    app.use(((_error, _req, res, _next) => {
      res.status(500).end();
    }) as express.ErrorRequestHandler);
    const shop: RunningApp = await startApp(app);
    try {
      expect((await fetch(`${shop.url}/orders/7`)).status).toBe(500);
    } finally {
      await shop.close();
    }
    expect(await Sentry.flush(5_000)).toBe(true);

    await service.waitForOccurrences(ws.id, 4);
    const page = await listErrorGroups(service.ctx.db, ws.id);
    const byClass = new Map(page.groups.map((group) => [group.error_class, group]));
    expect(page.groups).toHaveLength(3);
    expect(page.counts.node).toBe(3);

    const declined = byClass.get('PaymentDeclined')!;
    expect(declined).toMatchObject({ source: 'node', occurrence_count: '2' });
    const [occurrence] = await latestOccurrences(service.ctx.db, declined);
    expect(occurrence).toMatchObject({
      error_class: 'PaymentDeclined',
      environment: 'staging',
      app_version: 'shop@2.0.0',
      source: 'node',
    });
    expect(occurrence!.message).toMatch(/^card (4242|1111) declined$/);
    // Innermost frame first, in a readable form, naming this file and the raising function.
    expect(occurrence!.backtrace[0]).toMatch(/sentry-node\.test\.ts:\d+:\d+:in decline$/);
    // Tags and user are the structured detail's (issue 41), with the frames' code and in_app.
    expect(occurrence!.detail).toMatchObject({ tags: { plan: 'pro' }, user: { id: 'u_42' } });
    const raised = (occurrence!.detail as OccurrenceDetail).exceptions!.at(-1)!;
    expect(raised.frames[0]).toMatchObject({ function: 'decline', in_app: true });
    expect(raised.frames[0]!.context_line).toContain('PaymentDeclined');

    const message = byClass.get('UnknownError')!;
    expect(message.latest_message).toBe('Nightly export finished late');

    const express500 = byClass.get('TypeError')!;
    expect(express500.latest_message).toBe('order.total is undefined');
    const [fromExpress] = await latestOccurrences(service.ctx.db, express500);
    expect(fromExpress!.backtrace.length).toBeGreaterThan(0);
    expect(fromExpress).toMatchObject({ environment: 'staging', app_version: 'shop@2.0.0' });

    // What the SDK sent: envelopes with the key in the query, each answered 200.
    const envelopes = answered('/api/1/envelope/');
    expect(envelopes.length).toBeGreaterThanOrEqual(4);
    expect(envelopes[0]!.url).toContain(`sentry_key=${ws.public_key}`);
    expect(envelopes.every((request) => request.status === 200)).toBe(true);
  });

  it('stores a gzip envelope over 32 KB, and the answer carries the event id', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const sdk = client(dsnFor(service.url, ws.public_key));
    const before = answered('/envelope/').length;
    const eventId = sdk.captureException(new RangeError('big payload'), {
      captureContext: { extra: { blob: 'x'.repeat(40_000) } },
    });
    expect(await sdk.flush(5_000)).toBe(true);
    const sent = answered('/envelope/').slice(before);
    expect(sent).toEqual([expect.objectContaining({ encoding: 'gzip', status: 200 })]);
    await service.waitForOccurrences(ws.id, 1);
    const [group] = (await listErrorGroups(service.ctx.db, ws.id)).groups;
    expect(group).toMatchObject({ error_class: 'RangeError', latest_message: 'big payload' });
    expect(eventId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('answers a session-only envelope 200 and stores nothing', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const sdk = client(dsnFor(service.url, ws.public_key));
    const before = answered('/envelope/').length;
    sdk.sendSession(makeSession({ release: 'shop@2.0.0', environment: 'staging' }));
    expect(await sdk.flush(5_000)).toBe(true);
    expect(answered('/envelope/').slice(before)).toEqual([
      expect.objectContaining({ status: 200 }),
    ]);
    const page = await listErrorGroups(service.ctx.db, ws.id);
    expect(page.totalGroups).toBe(0);
  });

  it('refuses an unknown key (403, with a body that says what to do) and stores nothing', async () => {
    const sdk = client(dsnFor(service.url, 'pk_00000000000000000000000000000000'));
    const before = answered('/envelope/').length;
    sdk.captureException(new Error('nobody listens'));
    await sdk.flush(5_000);
    expect(answered('/envelope/').slice(before)).toEqual([
      expect.objectContaining({ status: 403 }),
    ]);
    const answer = await fetch(`${service.url}/api/1/envelope/?sentry_key=pk_nope`, {
      method: 'POST',
      body: '{}\n{"type":"event"}\n{}\n',
    });
    expect(answer.status).toBe(403);
    expect(await answer.json()).toEqual({
      error: { code: 'forbidden', message: expect.stringContaining('DSN') as string },
    });
  });

  it('stores a retried envelope (same event_id) once', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const eventId = '6f1c2a53b0b84d0f9d6a8e2e0c9b7a11';
    const envelope = [
      JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() }),
      JSON.stringify({ type: 'event' }),
      JSON.stringify({
        event_id: eventId,
        platform: 'node',
        exception: { values: [{ type: 'Error', value: 'once' }] },
      }),
    ].join('\n');
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const answer = await fetch(`${service.url}/api/7/envelope/?sentry_key=${ws.public_key}`, {
        method: 'POST',
        body: envelope,
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ id: eventId });
    }
    await service.waitForOccurrences(ws.id, 1);
    await waitUntil(async () => {
      const jobs = await service.ctx.db
        .selectFrom('error_groups')
        .select('occurrence_count')
        .where('workspace_id', '=', ws.id)
        .executeTakeFirst();
      return jobs?.occurrence_count === '1';
    }, 'the group to count the event once');
    const [group] = (await listErrorGroups(service.ctx.db, ws.id)).groups;
    expect(await latestOccurrences(service.ctx.db, group!)).toHaveLength(1);
  });

  it('121 events in a minute: the 121st gets 429 with both headers, and the SDK backs off', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const sdk = client(dsnFor(service.url, ws.public_key));
    const before = answered('/envelope/').length;
    // All 121 in one rate-limit minute, however slow the host (the window is the clock's minute).
    service.pinClock();
    for (let i = 0; i < 121; i += 1) {
      sdk.captureException(new Error(`burst ${i}`));
      // One at a time: the transport's own buffer would drop a burst before we could limit it.
      await sdk.flush(5_000);
    }
    const statuses = answered('/envelope/')
      .slice(before)
      .map((request) => request.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(120);
    expect(statuses.at(-1)).toBe(429);

    // Backing off: the next events are not even sent while the limit lasts.
    const sentBefore = answered('/envelope/').length;
    sdk.captureException(new Error('after the limit'));
    sdk.captureMessage('also after the limit');
    await sdk.flush(5_000);
    expect(answered('/envelope/').length).toBe(sentBefore);

    const answer = await fetch(`${service.url}/api/1/envelope/?sentry_key=${ws.public_key}`, {
      method: 'POST',
      body: '{}\n{"type":"event"}\n{"exception":{"values":[{"type":"E","value":"x"}]}}\n',
    });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('60');
    expect(answer.headers.get('x-sentry-rate-limits')).toBe('60:error;default:organization');
    service.unpinClock();
    await service.waitForOccurrences(ws.id, 120);
  });
});
