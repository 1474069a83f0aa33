import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzForms, startFuzzWorld, type FuzzWorld } from './support/fuzz.js';

/**
 * The sign-in and sign-up forms of `pnpm start` get 1,000 hostile posts each with a valid CSRF
 * token, the sign-in throttle raised (support/fuzz.ts) so that they reach validation and, when
 * well-formed, the password check: never a 5xx, and still ready afterwards. Apart from
 * fuzz-forms.test.ts because a sign-in changes the session, and its scrypt work is long enough to
 * deserve a worker of its own.
 */
describe('fuzzing the sign-in forms', () => {
  let world: FuzzWorld;
  beforeAll(async () => {
    world = await startFuzzWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  it('sign-in and sign-up, signed in with a valid CSRF token: 1,000 hostile posts each, no 5xx', async () => {
    const forms: [string, string[]][] = [
      ['/login', ['email', 'password', 'next']],
      ['/signup', ['name', 'email', 'password']],
    ];
    const answered = await fuzzForms(world, forms);
    // What the raised throttle is for: the posts reach the form, not the 429 page.
    for (const [path, answers] of answered) {
      const throttled = answers.filter((a) => a.status === 429).length;
      expect({ path, throttled }).toEqual({ path, throttled: 0 });
    }
    // The bound is for a hang, not a speed (each well-formed sign-in costs one scrypt).
  }, 600_000);

  it('is still ready afterwards', async () => {
    const ready = await fetch(`${world.ferry.url}/readyz`);
    expect(ready.status).toBe(200);
  });
});
