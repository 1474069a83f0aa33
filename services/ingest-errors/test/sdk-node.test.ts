import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '@ferry/testing';
import { Client } from '@ferry/sdk-node';
import { startIngestService, type IngestService } from './support/sdk-service.js';

class PaymentDeclined extends Error {}

/** Two errors thrown from the same line with different messages. */
function fail(message: string): Error {
  return new PaymentDeclined(message);
}

describe('sdk-node against the real ingest service', () => {
  let service: IngestService;
  const clients: Client[] = [];

  const clientFor = (
    publicKey: string,
    options: Partial<ConstructorParameters<typeof Client>[0]> = {},
  ) => {
    const client = new Client({
      publicKey,
      endpoint: service.url,
      environment: 'staging',
      appVersion: '1.4.2',
      ...options,
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    service = await startIngestService();
  });

  afterAll(async () => {
    for (const client of clients) await client.close(0);
    await service.close();
  });

  it('sends class, message, backtrace without its header, environment, version, context; one group per line', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const client = clientFor(ws.public_key);
    const errors = [fail('card 4242 declined'), fail('card 1111 declined')];
    for (const error of errors) client.captureException(error, { order_id: 'ord_1', n: 3 });
    expect(await client.flush()).toBe(true);
    expect(client.stats).toMatchObject({ captured: 2, sent: 2, accepted: 2, failed: 0 });

    await service.waitForOccurrences(ws.id, 2);
    const rows = await service.ctx.db
      .selectFrom('error_occurrences')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(rows.map((row) => row.message).sort()).toEqual([
      'card 1111 declined',
      'card 4242 declined',
    ]);
    // What was sent is the stack minus its first (`PaymentDeclined: message`) line.
    const framesOf = (message: string): string[] =>
      (errors.find((error) => error.message === message)?.stack ?? '')
        .split('\n')
        .slice(1)
        .map((line) => line.trim());
    for (const row of rows) {
      expect(row).toMatchObject({
        error_class: 'PaymentDeclined',
        environment: 'staging',
        app_version: '1.4.2',
        source: 'node',
        context: { order_id: 'ord_1', n: 3 },
      });
      expect(row.backtrace).toEqual(framesOf(row.message));
      expect(row.backtrace[0]).toMatch(/^at fail \(.*sdk-node\.test\.ts:\d+:\d+\)$/);
    }

    const groups = await service.ctx.db
      .selectFrom('error_groups')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ error_class: 'PaymentDeclined', source: 'node' });
  });

  it('sends a thrown non-Error as NonError with its text', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const client = clientFor(ws.public_key);
    client.captureException('plain string thrown');
    client.captureException({ code: 42 });
    expect(await client.flush()).toBe(true);
    await service.waitForOccurrences(ws.id, 2);
    const rows = await service.ctx.db
      .selectFrom('error_occurrences')
      .select(['error_class', 'message', 'backtrace'])
      .where('workspace_id', '=', ws.id)
      .execute();
    // Sorted here: the database's collation orders '{' and 'p' its own way.
    rows.sort((a, b) => (a.message < b.message ? -1 : 1));
    expect(rows).toEqual([
      { error_class: 'NonError', message: 'plain string thrown', backtrace: [] },
      { error_class: 'NonError', message: '{"code":42}', backtrace: [] },
    ]);
  });

  it('throttles to 60 a minute per process: 70 captures, 60 written', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const client = clientFor(ws.public_key);
    for (let i = 0; i < 70; i += 1) client.captureException(new RangeError(`r${i}`));
    expect(await client.flush(5_000)).toBe(true);
    expect(client.stats).toMatchObject({ captured: 60, sent: 60, accepted: 60, throttled: 10 });
    await service.waitForOccurrences(ws.id, 60);
    // The writer has drained: nothing beyond the 60 is on its way.
    const row = await service.ctx.db
      .selectFrom('error_occurrences')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.n)).toBe(60);
  });

  it('never sends a class on errorIgnore, and ignored ones do not use up the throttle', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const client = clientFor(ws.public_key, { errorIgnore: ['PaymentDeclined'], maxPerMinute: 1 });
    client.captureException(fail('ignored'));
    client.captureException(new TypeError('kept'));
    expect(await client.flush()).toBe(true);
    expect(client.stats).toMatchObject({ ignored: 1, captured: 1, sent: 1, throttled: 0 });
    await service.waitForOccurrences(ws.id, 1);
    const rows = await service.ctx.db
      .selectFrom('error_occurrences')
      .select(['error_class', 'message'])
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(rows).toEqual([{ error_class: 'TypeError', message: 'kept' }]);
  });

  it('an unknown public key is the SDK’s failure, told to onError, never thrown', async () => {
    const seen: unknown[] = [];
    const client = clientFor('pk_nobody', { onError: (error) => seen.push(error) });
    client.captureException(new Error('lost'));
    expect(await client.flush()).toBe(true);
    expect(client.stats).toMatchObject({ failed: 1, sent: 0 });
    expect(String(seen[0])).toMatch(/answered 404/);
  });
});
