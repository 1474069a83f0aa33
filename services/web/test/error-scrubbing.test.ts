import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, FormClient } from '@ferry/testing';
import { scrubbingSettingsOf } from '@ferry/workspace';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

/**
 * Settings > Error reporting's "Data scrubbing" card (issue 41): an admin saves the workspace's
 * extra keys, safe fields and IP choice; bad input re-renders with the field's error and what was
 * typed; a member reads what is set but cannot change it (403).
 */
describe('Error reporting: data scrubbing', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web?.close();
  });

  async function storedScrubbing(workspaceId: string) {
    const row = await web.ctx.db
      .selectFrom('workspaces')
      .select('settings')
      .where('id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    return scrubbingSettingsOf(row.settings);
  }

  it('an admin saves the form: one key a line, cleaned, with a flash; the page shows what was saved', async () => {
    const { workspace, client, base } = await signedInSeat(web, 'admin');
    const path = `${base}/settings/errors`;
    const page = await client.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-testid="scrubbing-form"');
    // The defaults are explained: the words, and what is always filtered.
    for (const word of ['password', 'api_key', 'cookie']) {
      expect(page.text).toContain(`<code>${word}</code>`);
    }
    expect(page.text).toContain('Changes take effect within 30 seconds');
    expect(page.text).not.toMatch(/name="keep_ip" value="on"[^>]*checked/);

    const saved = await client.post(
      `${path}/scrubbing`,
      {
        extra_keys: '  IBAN\r\n\r\nx-tenant-secret\r\niban\r\n',
        safe_fields: 'Session_Country',
        keep_ip: 'on',
      },
      { csrfFrom: path },
    );
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(path);
    expect(await storedScrubbing(workspace.id)).toEqual({
      extra_keys: ['iban', 'x-tenant-secret'],
      safe_fields: ['session_country'],
      keep_ip: true,
    });

    const after = await client.get(path);
    expect(after.text).toContain('Scrubbing settings saved.');
    expect(after.text).toMatch(/name="extra_keys"[^>]*>\s*iban\nx-tenant-secret<\/textarea/);
    expect(after.text).toMatch(/name="keep_ip"[\s\S]{0,120}checked/);

    // Unticked and emptied: back to the defaults.
    await client.post(`${path}/scrubbing`, { extra_keys: '', safe_fields: '' }, { csrfFrom: path });
    expect(await storedScrubbing(workspace.id)).toEqual({
      extra_keys: [],
      safe_fields: [],
      keep_ip: false,
    });
  });

  it('refuses bad input with the field’s error, keeping what was typed and changing nothing', async () => {
    const { workspace, client, base } = await signedInSeat(web, 'admin');
    const path = `${base}/settings/errors`;
    const long = 'k'.repeat(61);
    const refused = await client.post(
      `${path}/scrubbing`,
      {
        extra_keys: `iban\n${long}`,
        safe_fields: Array.from({ length: 51 }, (_, i) => `field_${i}`).join('\n'),
      },
      { csrfFrom: path },
    );
    expect(refused.status).toBe(303);
    const refusedPage = await client.follow(refused);
    expect(refusedPage.text).toContain('The scrubbing settings were not saved');
    expect(refusedPage.text).toContain('aria-invalid="true" aria-describedby="f-extra_keys-error"');
    expect(refusedPage.text).toContain('is too long: each key is at most 60 characters.');
    expect(refusedPage.text).toContain(
      'aria-invalid="true" aria-describedby="f-safe_fields-error"',
    );
    expect(refusedPage.text).toContain('At most 50 safe fields.');
    expect(refusedPage.text).toContain(long);
    expect(refusedPage.text).toContain('field_50');
    expect(await storedScrubbing(workspace.id)).toEqual({
      extra_keys: [],
      safe_fields: [],
      keep_ip: false,
    });

    const always = await client.post(
      `${path}/scrubbing`,
      { safe_fields: 'Cookie' },
      { csrfFrom: path },
    );
    expect(always.status).toBe(303);
    const alwaysPage = await client.follow(always);
    expect(alwaysPage.text).toContain('“cookie” is always filtered; it cannot be a safe field.');
  });

  it('a member sees what is set but no form, and is refused a save (403)', async () => {
    const { workspace, client: adminClient, base } = await signedInSeat(web, 'admin');
    const path = `${base}/settings/errors`;
    await adminClient.post(
      `${path}/scrubbing`,
      { extra_keys: 'iban', safe_fields: '' },
      { csrfFrom: path },
    );

    const member = await createMember(web.ctx.db, workspace, { role: 'member' });
    const client = new FormClient(web.url);
    await client.signIn(member.user.email, member.user.password);
    const page = await client.get(path);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('data-testid="scrubbing-form"');
    expect(page.text).toContain('data-testid="scrubbing-summary"');
    expect(page.text).toContain('<code>iban</code>');

    const refused = await client.post(
      `${path}/scrubbing`,
      { extra_keys: '', keep_ip: 'on' },
      { csrfFrom: path },
    );
    expect(refused.status).toBe(403);
    expect(await storedScrubbing(workspace.id)).toEqual({
      extra_keys: ['iban'],
      safe_fields: [],
      keep_ip: false,
    });
  });
});
