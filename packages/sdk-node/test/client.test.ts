import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Receiver, waitUntil } from '@ferry/testing';
import { Client, type InitOptions } from '../src/index.js';

interface Body {
  errors: { error_class: string; message: string }[];
  source: string;
}

const bodyOf = (receiver: Receiver, i: number): Body =>
  JSON.parse(receiver.requests[i]?.body ?? '{}') as Body;

describe('Client transport (a recording receiver as the endpoint)', () => {
  let receiver: Receiver;
  const clients: Client[] = [];

  const clientFor = (options: Partial<InitOptions> = {}): Client => {
    const client = new Client({ publicKey: 'pk_test', endpoint: receiver.url, ...options });
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    receiver = await new Receiver().start();
    receiver.reply({ status: 202, body: '{"accepted":10,"ids":[]}' });
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close(0);
    await receiver.close();
  });

  it('batches 25 captures into 3 requests of at most 10, with the tenant header and source node', async () => {
    const client = clientFor({ flushIntervalMs: 60_000 });
    for (let i = 0; i < 25; i += 1) client.captureException(new Error(`e${i}`));
    expect(await client.flush()).toBe(true);
    expect(receiver.requests).toHaveLength(3);
    const sizes = receiver.requests.map((_, i) => bodyOf(receiver, i).errors.length);
    expect(sizes).toEqual([10, 10, 5]);
    const first = receiver.requests[0];
    expect(first).toMatchObject({ method: 'POST', path: '/ingest/errors' });
    expect(first?.headers['x-service-tenant']).toBe('pk_test');
    expect(first?.headers['content-type']).toBe('application/json');
    expect(bodyOf(receiver, 0).source).toBe('node');
    expect(bodyOf(receiver, 2).errors.map((e) => e.message)).toEqual([
      'e20',
      'e21',
      'e22',
      'e23',
      'e24',
    ]);
  });

  it('sends a full batch at once and a partial one on the interval, without flush', async () => {
    const client = clientFor({ flushIntervalMs: 100 });
    for (let i = 0; i < 10; i += 1) client.captureException(new Error('burst'));
    await receiver.waitFor(1);
    client.captureException(new Error('trickle'));
    await receiver.waitFor(2);
    expect(bodyOf(receiver, 1).errors).toHaveLength(1);
  });

  it('honours 429 Retry-After: the reports arrive after ~1 s, not before', async () => {
    receiver.replyOnce({ status: 429, headers: { 'Retry-After': '1' }, body: '{}' });
    const client = clientFor();
    client.captureException(new Error('first'));
    const flushed = client.flush(5_000);
    await receiver.waitFor(1);
    // Captured during the pause: held, and sent with the first one once it ends (not before: the
    // arrival times below, which a loaded host cannot make pass by being slow).
    client.captureException(new Error('during pause'));
    expect(await flushed).toBe(true);
    expect(receiver.requests).toHaveLength(2);
    const [rejected, retried] = receiver.requests;
    expect((retried?.receivedAt ?? 0) - (rejected?.receivedAt ?? 0)).toBeGreaterThanOrEqual(950);
    expect(bodyOf(receiver, 1).errors.map((e) => e.message)).toEqual(['first', 'during pause']);
    expect(client.stats).toMatchObject({ sent: 2, failed: 0 });
  });

  it('holds at most maxQueue reports while paused and drops the newest', async () => {
    receiver.replyOnce({ status: 429, headers: { 'Retry-After': '30' } });
    const client = clientFor({ maxQueue: 3, batchSize: 2 });
    client.captureException(new Error('a'));
    client.captureException(new Error('b'));
    await receiver.waitFor(1);
    // Until the 429 is read, a and b are in flight rather than back in the queue.
    await waitUntil(() => client.queued === 2, 'a and b back in the queue after the 429');
    for (const m of ['c', 'd', 'e']) client.captureException(new Error(m));
    expect(client.queued).toBe(3);
    expect(client.stats.overflowed).toBe(2);
    // Paused for 30 s: flush gives up at its timeout instead of waiting that out.
    expect(await client.flush(100)).toBe(false);
    expect(receiver.requests).toHaveLength(1);
  });

  it('a receiver that is down never throws into the caller; onError hears of it', async () => {
    const seen: unknown[] = [];
    const down = await new Receiver().start();
    const endpoint = down.url;
    await down.close();
    const client = new Client({ publicKey: 'pk', endpoint, onError: (e) => seen.push(e) });
    clients.push(client);
    expect(() => client.captureException(new Error('nobody listens'))).not.toThrow();
    expect(await client.flush()).toBe(true);
    expect(client.stats).toMatchObject({ failed: 1, sent: 0 });
    expect(seen).toHaveLength(1);
  });

  it('a receiver that times out fails the batch after timeoutMs; flush still resolves', async () => {
    receiver.reply({ status: 202, body: '{}', delayMs: 2_000 });
    const client = clientFor({ timeoutMs: 200 });
    client.captureException(new Error('slow'));
    const started = Date.now();
    expect(await client.flush(1_500)).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(client.stats).toMatchObject({ failed: 1, sent: 0 });
  });

  it('swallows a throwing onError, bad input and a missing key', async () => {
    const client = clientFor({
      onError: () => {
        throw new Error('host bug');
      },
    });
    const hostile = {
      get message(): string {
        throw new Error('getter');
      },
    };
    expect(() => client.captureException(hostile)).not.toThrow();
    const circular: Record<string, unknown> = { big: 10n };
    circular.self = circular;
    expect(() => client.captureException(new Error('ctx'), circular)).not.toThrow();
    expect(await client.flush()).toBe(true);
    expect(bodyOf(receiver, 0).errors.at(-1)).toMatchObject({
      context: { big: '10', self: '[Circular]' },
    });

    const off = new Client({ publicKey: '', endpoint: receiver.url });
    clients.push(off);
    off.captureException(new Error('nowhere'));
    expect(await off.flush()).toBe(true);
  });

  it('flush resolves at once with nothing queued; close stops capturing', async () => {
    const client = clientFor();
    expect(await client.flush()).toBe(true);
    expect(await client.close()).toBe(true);
    client.captureException(new Error('after close'));
    expect(client.queued).toBe(0);
    expect(receiver.requests).toHaveLength(0);
  });
});
