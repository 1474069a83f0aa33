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

  // Sign-in and sign-up have their own file (fuzz-signin-forms.test.ts): they change the session,
  // and their password hashing makes them a long file of their own. One test a form, so each
  // has its own bound and a failure names its form; they run in this order, one after another.
  const forms: [name: string, path: () => string, fields: string[]][] = [
    ['a message', () => `${world.roomPath}/messages`, ['body']],
    ['an API token', () => `${world.base}/settings/tokens`, ['name', 'scopes']],
    ['an incoming key', () => `${world.roomPath}/settings/webhooks/incoming`, ['name']],
    ['an outgoing hook', () => `${world.roomPath}/settings/webhooks/outgoing`, ['target_url']],
    ['an invitation', () => `${world.base}/members`, ['email', 'role']],
    ['a workspace', () => '/workspaces', ['name']],
    // Last: this form creates hundreds of rooms for the owner (the sidebar lists at most 30 and
    // the Rooms page 50 a page since #42, so they no longer slow every page after it).
    ['a room', () => `${world.base}/rooms`, ['name']],
  ];
  for (const [name, path, fields] of forms) {
    it(`the form for ${name}, signed in with a valid CSRF token: 1,000 hostile posts, no 5xx`, async () => {
      await fuzzForms(world, [[path(), fields]]);
      // 1,000 posts take 3-10 s alone and up to ten times that beside the rest of the suite on
      // 2 cores: the bound is for a hang, not a speed.
    }, 600_000);
  }

  it('is still ready afterwards', async () => {
    const ready = await fetch(`${world.ferry.url}/readyz`);
    expect(ready.status).toBe(200);
  });
});
