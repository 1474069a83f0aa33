import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { listen, type Listener } from '../src/listen.js';
import { serverUrl } from './scratch-database.js';
import { waitFor } from './wait-for.js';

describe('listen', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('passes nothing on before the connection’s catch-up call, even while notifications pour in', async () => {
    // The incoming key cache trusts the channel and hears settle tokens from the first call it
    // gets; a notification passed on while the connection was still being proven, then the
    // catch-up, dropped keys cached in between (a flake in key-cache.test on a loaded host).
    const channel = `ferry_t_listen_${randomBytes(6).toString('hex')}`;
    const notifier = new pg.Client({ connectionString: serverUrl() });
    await notifier.connect();
    let pouring = true;
    let sent = 0;
    const pour = (async () => {
      while (pouring) await notifier.query('select pg_notify($1, $2)', [channel, `n${++sent}`]);
    })();
    cleanups.push(async () => {
      pouring = false;
      await pour;
      await notifier.end();
    });
    // Pouring before the listener starts: LISTEN to the end of the probe is a window of its own.
    await waitFor(
      () => Promise.resolve(sent > 20 ? true : undefined),
      'the notifier to be pouring',
    );

    const calls: (string | undefined)[] = [];
    const listener: Listener = listen(serverUrl(), channel, (payload) => calls.push(payload));
    cleanups.push(() => listener.close());
    await waitFor(
      () => Promise.resolve(calls.filter((p) => p !== undefined).length >= 20 ? true : undefined),
      'twenty notifications after the catch-up',
    );
    expect(calls[0]).toBeUndefined();
    expect(calls.slice(1)).not.toContain(undefined);
  });
});
