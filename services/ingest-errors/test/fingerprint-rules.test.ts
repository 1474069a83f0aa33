import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '@ferry/testing';
import { saveFingerprintRules } from '@ferry/workspace';
import { startIngestService, type IngestService } from './support/sdk-service.js';

/**
 * Issue 43, part 5: a workspace's fingerprint rules group its new occurrences at write time; the
 * occurrences already written stay where they are, and a group a rule made says which rule.
 */
describe('fingerprint rules in the writer', () => {
  let service: IngestService;
  beforeAll(async () => {
    service = await startIngestService();
  });
  afterAll(async () => {
    await service.close();
  });

  const report = (error_class: string, file: string, context: Record<string, unknown> = {}) => ({
    error_class,
    message: `${error_class} happened`,
    source: 'api',
    backtrace: [`${file}:12:in \`charge'`],
    context,
  });

  async function send(publicKey: string, errors: unknown[]): Promise<void> {
    const response = await fetch(`${service.url}/ingest/errors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-tenant': publicKey },
      body: JSON.stringify({ errors }),
    });
    expect(response.status).toBe(202);
  }

  const groups = async (workspaceId: string) =>
    (
      await service.ctx.db
        .selectFrom('error_groups')
        .select(['error_class', 'occurrence_count', 'fingerprint_rule'])
        .where('workspace_id', '=', workspaceId)
        .orderBy('error_class')
        .orderBy('occurrence_count')
        .execute()
    ).map((g) => ({ ...g, occurrence_count: Number(g.occurrence_count) }));

  it('regroups new occurrences only, joins two errors into one group, and says which rule', async () => {
    const ws = await createWorkspace(service.ctx.db);
    // Before any rule: two different errors make two groups.
    await send(ws.public_key, [
      report('ReadTimeout', 'app/payments/client.rb'),
      report('ConnectTimeout', 'app/payments/gateway.rb'),
    ]);
    await service.waitForOccurrences(ws.id, 2);
    expect(await groups(ws.id)).toEqual([
      { error_class: 'ConnectTimeout', occurrence_count: 1, fingerprint_rule: null },
      { error_class: 'ReadTimeout', occurrence_count: 1, fingerprint_rule: null },
    ]);

    const saved = await saveFingerprintRules(
      service.ctx.db,
      ws.id,
      '# payment timeouts are one issue\nerror.type:*Timeout stack.abs_path:app/payments/* -> payment-timeouts\n',
    );
    expect(saved).toEqual({ ok: true });

    // After: the same two errors land in one new group; the old groups keep what they had.
    await send(ws.public_key, [
      report('ReadTimeout', 'app/payments/client.rb'),
      report('ConnectTimeout', 'app/payments/gateway.rb'),
      report('ReadTimeout', 'app/search/client.rb'),
    ]);
    await service.waitForOccurrences(ws.id, 5);
    const after = await groups(ws.id);
    expect(after.filter((g) => g.fingerprint_rule === null)).toEqual([
      { error_class: 'ConnectTimeout', occurrence_count: 1, fingerprint_rule: null },
      { error_class: 'ReadTimeout', occurrence_count: 1, fingerprint_rule: null },
      // Not under app/payments: the rule does not match, so the default groups it (new frame).
      { error_class: 'ReadTimeout', occurrence_count: 1, fingerprint_rule: null },
    ]);
    const byRule = after.filter((g) => g.fingerprint_rule !== null);
    expect(byRule).toHaveLength(1);
    expect(byRule[0]).toMatchObject({
      occurrence_count: 2,
      fingerprint_rule:
        'line 2: error.type:*Timeout stack.abs_path:app/payments/* -> payment-timeouts',
    });
  });

  it('fills variables from the report, and another workspace’s rules do not apply', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const other = await createWorkspace(service.ctx.db);
    await saveFingerprintRules(
      service.ctx.db,
      ws.id,
      'tags.feature:checkout-* -> checkout, {{ tags.feature }}',
    );
    await send(ws.public_key, [
      report('A', 'app/a.rb', { tags: { feature: 'checkout-v1' } }),
      report('B', 'app/b.rb', { tags: { feature: 'checkout-v1' } }),
      report('C', 'app/c.rb', { tags: { feature: 'checkout-v2' } }),
    ]);
    await send(other.public_key, [
      report('A', 'app/a.rb', { tags: { feature: 'checkout-v1' } }),
      report('B', 'app/b.rb', { tags: { feature: 'checkout-v1' } }),
    ]);
    await service.waitForOccurrences(ws.id, 3);
    await service.waitForOccurrences(other.id, 2);
    const mine = await groups(ws.id);
    expect(mine.map((g) => g.occurrence_count).sort()).toEqual([1, 2]);
    expect(mine.every((g) => g.fingerprint_rule?.startsWith('line 1: '))).toBe(true);
    const theirs = await groups(other.id);
    expect(theirs.map((g) => [g.occurrence_count, g.fingerprint_rule])).toEqual([
      [1, null],
      [1, null],
    ]);
  });
});
