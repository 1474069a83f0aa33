import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  expectNoServerError,
  hostileText,
  PER_TARGET,
  SEED,
  sendAll,
  startFuzzWorld,
  type FuzzWorld,
} from './support/fuzz.js';

/**
 * At least 1,000 hostile posts to every form of `pnpm start`, signed in with a valid CSRF token so
 * they reach validation: never a 5xx, and still ready afterwards. Generators in support/fuzz.ts.
 */
describe('fuzzing every form', () => {
  let world: FuzzWorld;
  beforeAll(async () => {
    world = await startFuzzWorld();
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  it('every form, signed in with a valid CSRF token: 1,000 hostile posts each, no 5xx', async () => {
    // Signing in or up changes the session (and its CSRF token): those two go last.
    const forms: [string, readonly string[]][] = [
      [`${world.roomPath}/messages`, ['body']],
      [`${world.base}/settings/tokens`, ['name', 'scopes']],
      [`${world.roomPath}/settings/webhooks/incoming`, ['name']],
      [`${world.roomPath}/settings/webhooks/outgoing`, ['target_url']],
      [`${world.base}/rooms`, ['name']],
      [`${world.base}/members`, ['email', 'role']],
      ['/workspaces', ['name']],
      ['/login', ['email', 'password', 'next']],
      ['/signup', ['name', 'email', 'password']],
    ];
    const csrf = await world.client.csrf(world.base);
    for (const [path, fields] of forms) {
      const posts = fc.sample(
        fc.array(fc.tuple(fc.constantFrom(...fields), hostileText), { maxLength: 5 }),
        { numRuns: PER_TARGET, seed: SEED },
      );
      const answers = await sendAll(posts, (pairs) => {
        const body = new URLSearchParams(pairs.map(([k, v]) => [k, v.slice(0, 30_000)]));
        body.set('_csrf', csrf);
        return world.client.post(path, Object.fromEntries(body), {}).then((r) => ({
          status: r.status,
          text: r.text,
        }));
      });
      expectNoServerError(answers, `form ${path}`);
    }
    // 9,000 posts take 2–4 minutes beside the rest of the suite on 2 cores (the host's speed moves
    // too): the bound is for a hang, not a speed.
  }, 600_000);

  it('is still ready afterwards', async () => {
    const ready = await fetch(`${world.ferry.url}/readyz`);
    expect(ready.status).toBe(200);
  });
});
