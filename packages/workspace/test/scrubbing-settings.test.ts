import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, FILTERED, scrubValue } from '@ferry/core';
import type { WorkspaceSettings } from '@ferry/db';
import { createTestContext, createWorkspace, type TestContext } from '@ferry/testing';
import {
  SCRUB_RULES_TTL_MS,
  createScrubRulesCache,
  saveScrubbingSettings,
  scrubbingSettingsOf,
} from '../src/index.js';

/**
 * A workspace's data scrubbing (issue 41): saved cleaned (trimmed, lower-cased, each key once)
 * into its settings JSON beside whatever else is there, refused with a 422 per list, and read by
 * ingest through a cache that applies a change within SCRUB_RULES_TTL_MS.
 */
describe('scrubbing settings', () => {
  let ctx: TestContext;

  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  async function storedSettings(workspaceId: string) {
    const row = await ctx.db
      .selectFrom('workspaces')
      .select('settings')
      .where('id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    return row.settings;
  }

  it('defaults to nothing extra and the IP filtered', async () => {
    const workspace = await createWorkspace(ctx.db);
    expect(scrubbingSettingsOf(workspace.settings)).toEqual({
      extra_keys: [],
      safe_fields: [],
      keep_ip: false,
    });
    // A hand-edited value that does not parse reads as the defaults (which only scrub more).
    const handEdited = { scrubbing: { extra_keys: 'iban' } } as unknown as WorkspaceSettings;
    expect(scrubbingSettingsOf(handEdited).extra_keys).toEqual([]);
  });

  it('saves the lists cleaned, keeping the other settings', async () => {
    const workspace = await createWorkspace(ctx.db, { settings: { other: { kept: true } } });
    const saved = await saveScrubbingSettings(ctx.db, workspace.id, {
      extra_keys: ['  IBAN ', 'iban', 'X-Tenant-Secret'],
      safe_fields: ['Session_Country'],
      keep_ip: true,
    });
    expect(saved).toEqual({
      extra_keys: ['iban', 'x-tenant-secret'],
      safe_fields: ['session_country'],
      keep_ip: true,
    });
    expect(await storedSettings(workspace.id)).toEqual({ other: { kept: true }, scrubbing: saved });
  });

  it('refuses a bad list with a 422 naming it, and changes nothing', async () => {
    const workspace = await createWorkspace(ctx.db);
    const refusal = async (body: unknown) => {
      const error = await saveScrubbingSettings(ctx.db, workspace.id, body).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('validation_failed');
      return (error as AppError).options.fields ?? {};
    };
    expect(await refusal({ extra_keys: ['ok', 'x'.repeat(61)] })).toEqual({
      extra_keys: expect.stringContaining('at most 60 characters') as string,
    });
    expect(await refusal({ extra_keys: ['  '] })).toEqual({
      extra_keys: 'A key cannot be empty.',
    });
    const many = Array.from({ length: 51 }, (_, i) => `key${i}`);
    expect(await refusal({ safe_fields: many, keep_ip: 'yes' })).toEqual({
      safe_fields: 'At most 50 safe fields.',
      keep_ip: 'Must be true or false.',
    });
    expect(await refusal({ safe_fields: ['Authorization'] })).toEqual({
      safe_fields: '“authorization” is always filtered; it cannot be a safe field.',
    });
    // 50 after de-duplication is within the cap.
    await saveScrubbingSettings(ctx.db, workspace.id, {
      extra_keys: [...many.slice(0, 50), ...many.slice(0, 50).map((k) => k.toUpperCase())],
    });
    expect(scrubbingSettingsOf(await storedSettings(workspace.id)).extra_keys).toHaveLength(50);
  });

  it('ingest’s cache applies a change once its TTL has passed', async () => {
    const workspace = await createWorkspace(ctx.db);
    let clock = 1_000_000;
    const cache = createScrubRulesCache(ctx.db, () => clock);
    const report = { customer_iban: 'DE89', user: { ip_address: '203.0.113.7' } };

    expect(scrubValue(report, await cache.rules(workspace.id))).toEqual({
      customer_iban: 'DE89',
      user: { ip_address: FILTERED },
    });
    await saveScrubbingSettings(ctx.db, workspace.id, { extra_keys: ['iban'], keep_ip: true });
    clock += SCRUB_RULES_TTL_MS - 1;
    expect(scrubValue(report, await cache.rules(workspace.id))).toEqual({
      customer_iban: 'DE89',
      user: { ip_address: FILTERED },
    });
    clock += 1;
    expect(scrubValue(report, await cache.rules(workspace.id))).toEqual({
      customer_iban: FILTERED,
      user: { ip_address: '203.0.113.7' },
    });
  });
});
