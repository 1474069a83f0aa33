import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeb, signedInSeat, type WebHarness } from './harness.js';

/** The members page shows a refused invite (issue #20 item 9) as the form's flash, not an error page. */
describe('invite link limits on the members page', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web.close();
  });

  it('says why when the hourly rate of new links is reached', async () => {
    const { client, base, workspace } = await signedInSeat(web, 'admin');
    const make = () =>
      client.post(
        `${base}/members/invites`,
        { role: 'member', expires_in_days: '7' },
        { csrfFrom: `${base}/members` },
      );
    for (let i = 0; i < 30; i++) expect((await make()).status).toBe(302);
    const refused = await make();
    // Back to the list (303, #42), which says why.
    expect(refused.status).toBe(303);
    expect((await client.follow(refused)).text).toContain('at most 30 invite links an hour');
    const stored = await web.ctx.db
      .selectFrom('workspace_invites')
      .select('id')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(stored).toHaveLength(30);
  });
});
