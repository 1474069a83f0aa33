import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '@ferry/testing';
import { listErrorGroups } from '@ferry/workspace';
import { startIngestService, type IngestService } from './support/sdk-service.js';

/**
 * Issue 43: a native /ingest/errors report's tags are the scalar entries of `context.tags` when
 * that is an object, so `key:value` searches find native reports as they find Sentry events.
 */
describe('native report tags', () => {
  let service: IngestService;
  beforeAll(async () => {
    service = await startIngestService();
  });
  afterAll(async () => {
    await service.close();
  });

  it('stores context.tags’ scalar entries as the occurrence’s tags, and search finds them', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const report = (error_class: string, context: Record<string, unknown>) => ({
      error_class,
      message: 'boom',
      source: 'api',
      backtrace: [`app/${error_class}.rb:1`],
      context,
    });
    const response = await fetch(`${service.url}/ingest/errors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-tenant': ws.public_key },
      body: JSON.stringify({
        errors: [
          report('CheckoutError', {
            tags: { feature: 'checkout-v2', attempt: 3, beta: true, nested: { no: 1 }, none: null },
          }),
          report('ListTagsError', { tags: ['feature', 'checkout-v2'] }),
          report('NoTagsError', { order: 7 }),
        ],
      }),
    });
    expect(response.status).toBe(202);
    await service.waitForOccurrences(ws.id, 3);
    const rows = await service.ctx.db
      .selectFrom('error_occurrences')
      .select(['error_class', 'tags'])
      .where('workspace_id', '=', ws.id)
      .orderBy('error_class')
      .execute();
    expect(rows).toEqual([
      {
        error_class: 'CheckoutError',
        tags: { feature: 'checkout-v2', attempt: '3', beta: 'true' },
      },
      { error_class: 'ListTagsError', tags: null },
      { error_class: 'NoTagsError', tags: null },
    ]);
    const found = await listErrorGroups(service.ctx.db, ws.id, {
      q: 'feature:checkout-* attempt:3',
    });
    expect(found.groups.map((g) => g.error_class)).toEqual(['CheckoutError']);
  });
});
