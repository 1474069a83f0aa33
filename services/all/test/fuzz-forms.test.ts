import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzForms, startFuzzWorld, type FuzzWorld } from './support/fuzz.js';

/**
 * At least 1,000 hostile posts to every form of `pnpm start`, signed in with a valid CSRF token so
 * they reach validation: never a 5xx, and still ready afterwards. Generators in support/fuzz.ts.
 */
describe('fuzzing every form', () => {
  let world: FuzzWorld;
  beforeAll(async () => {
    world = await startFuzzWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  it('every form, signed in with a valid CSRF token: 1,000 hostile posts each, no 5xx', async () => {
    // Sign-in and sign-up have their own file (fuzz-signin-forms.test.ts): they change the
    // session, and their password hashing makes them a long file of their own.
    const forms: [string, string[]][] = [
      [`${world.roomPath}/messages`, ['body']],
      [`${world.base}/settings/tokens`, ['name', 'scopes']],
      [`${world.roomPath}/settings/webhooks/incoming`, ['name']],
      [`${world.roomPath}/settings/webhooks/outgoing`, ['target_url']],
      [`${world.base}/members`, ['email', 'role']],
      ['/workspaces', ['name']],
      // Last: every workspace page lists the owner's rooms, and this form creates hundreds.
      [`${world.base}/rooms`, ['name']],
    ];
    await fuzzForms(world, forms);
    // 7,000 posts take 1–3 minutes beside the rest of the suite on 2 cores (the host's speed moves
    // too): the bound is for a hang, not a speed.
  }, 600_000);

  it('is still ready afterwards', async () => {
    const ready = await fetch(`${world.ferry.url}/readyz`);
    expect(ready.status).toBe(200);
  });
});
