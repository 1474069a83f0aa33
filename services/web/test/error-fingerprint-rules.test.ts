import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErrorGroup, createErrorOccurrence } from '@ferry/testing';
import { fingerprintRulesSource } from '@ferry/workspace';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

/**
 * Settings > Error reporting's "Fingerprint rules" card (issue 43, part 5): rules with a syntax
 * error come back with each bad line named and are not stored; good ones are saved; "Test these
 * rules" lists the groups of the last 1,000 occurrences they would regroup, saving nothing; a
 * group a rule made says so on its page.
 */
describe('Error reporting: fingerprint rules', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web?.close();
  });

  it('shows syntax errors with their lines and stores nothing; saves rules that parse', async () => {
    const { workspace, client, base } = await signedInSeat(web, 'admin');
    const path = `${base}/settings/errors`;
    const bad = 'error.type:Timeout -> ok\nculprit:x -> y\nmessage:<b>x</b>';
    const refused = await client.post(
      `${path}/fingerprint-rules`,
      { rules: bad },
      { csrfFrom: path },
    );
    expect(refused.status).toBe(303);
    expect(refused.location).toBe(`${path}#fingerprint-rules`);
    expect(await fingerprintRulesSource(web.ctx.db, workspace.id)).toBe('');
    const page = await client.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('The fingerprint rules were not saved');
    expect(page.text).toContain('line 2: unknown matcher &quot;culprit&quot;');
    expect(page.text).toContain('line 3: expected &quot;-&gt;&quot;');
    // What was typed comes back, escaped.
    expect(page.text).toContain('message:&lt;b&gt;x&lt;/b&gt;</textarea');
    expect(page.text).toContain('aria-describedby="f-rules-error"');

    const rules = '# timeouts\nerror.type:*Timeout -> timeouts';
    const saved = await client.post(`${path}/fingerprint-rules`, { rules }, { csrfFrom: path });
    expect(saved.status).toBe(303);
    expect(await fingerprintRulesSource(web.ctx.db, workspace.id)).toBe(rules);
    const after = await client.get(path);
    expect(after.text).toContain('Fingerprint rules saved.');
    expect(after.text).toContain('# timeouts\nerror.type:*Timeout -&gt; timeouts</textarea');
  });

  it('the test box lists the groups the rules would regroup, saving nothing', async () => {
    const { workspace, client, base } = await signedInSeat(web, 'admin');
    const path = `${base}/settings/errors`;
    const timeout = await createErrorGroup(web.ctx.db, workspace, { error_class: 'ReadTimeout' });
    const other = await createErrorGroup(web.ctx.db, workspace, { error_class: 'NoMethodError' });
    for (let i = 0; i < 3; i += 1) await createErrorOccurrence(web.ctx.db, timeout);
    await createErrorOccurrence(web.ctx.db, other);

    const tested = await client.post(
      `${path}/fingerprint-rules/test`,
      { rules: 'error.type:*Timeout stack.function:charge -> timeouts' },
      { csrfFrom: path },
    );
    expect(tested.status).toBe(303);
    const page = await client.get(path);
    expect(page.text).toContain('data-testid="rule-test"');
    expect(page.text).toMatch(
      /3 of the last 4 occurrences would be\s+regrouped, from these groups/,
    );
    expect(page.text).toContain(`${base}/errors/${timeout.id}`);
    expect(page.text).not.toContain(`${base}/errors/${other.id}`);
    expect(await fingerprintRulesSource(web.ctx.db, workspace.id)).toBe('');

    // A bad rule in the box: its error, no result.
    await client.post(
      `${path}/fingerprint-rules/test`,
      { rules: 'error.type:x' },
      { csrfFrom: path },
    );
    const refused = await client.get(path);
    expect(refused.text).toContain('line 1: expected');
    expect(refused.text).not.toContain('data-testid="rule-test"');
  });

  it('a member cannot change the rules; a group a rule made says so', async () => {
    const { workspace, client, base } = await signedInSeat(web, 'member');
    const path = `${base}/settings/errors`;
    const refused = await client.post(
      `${path}/fingerprint-rules`,
      { rules: 'error.type:* -> all' },
      { csrfFrom: path },
    );
    expect(refused.status).toBe(403);
    const group = await createErrorGroup(web.ctx.db, workspace, { error_class: 'ReadTimeout' });
    await web.ctx.db
      .updateTable('error_groups')
      .set({ fingerprint_rule: 'line 2: error.type:*Timeout -> timeouts' })
      .where('id', '=', group.id)
      .execute();
    const page = await client.get(`${base}/errors/${group.id}`);
    expect(page.text).toContain('Grouped by your rule:');
    expect(page.text).toContain('line 2: error.type:*Timeout -&gt; timeouts');
  });
});
