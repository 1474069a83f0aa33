import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '@ferry/testing';
import { listErrorGroups, occurrenceHours, tagBreakdown } from '@ferry/workspace';
import { startIngestService, type IngestService } from './support/sdk-service.js';

/**
 * The group page's tag breakdown and 24-hour chart (issue 41), counted over what the writer
 * stored: environment, release and URL from SPEC.md's fields; browser and os from the contexts,
 * or from the User-Agent when a browser SDK sent none (as Sentry's Relay reads it); the SDK's tags.
 */
const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.8078.108 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0';

describe('tag breakdown and occurrence hours', () => {
  let service: IngestService;

  beforeAll(async () => {
    service = await startIngestService();
  });

  afterAll(async () => {
    await service.close();
  });

  it('top values per tag with their share of the group', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const send = async (agent: string, release: string, plan: string) => {
      const event = {
        event_id: crypto.randomUUID().replaceAll('-', ''),
        platform: 'javascript',
        sdk: { name: 'sentry.javascript.browser', version: '11.12.0' },
        release,
        environment: 'production',
        exception: { values: [{ type: 'TypeError', value: 'x is undefined' }] },
        request: { url: 'https://shop.test/cart?item=7', headers: { 'User-Agent': agent } },
        tags: { plan },
      };
      const response = await fetch(`${service.url}/api/1/store/?sentry_key=${ws.public_key}`, {
        method: 'POST',
        body: JSON.stringify(event),
      });
      expect(response.status).toBe(200);
    };
    await send(CHROME, 'shop@2', 'pro');
    await send(CHROME, 'shop@2', 'pro');
    await send(CHROME, 'shop@1', 'free');
    await send(FIREFOX, 'shop@2', 'pro');
    await service.waitForOccurrences(ws.id, 4);
    const [group] = (await listErrorGroups(service.ctx.db, ws.id)).groups;

    const { total, tags } = await tagBreakdown(service.ctx.db, ws.id, group!.id);
    expect(total).toBe(4);
    const byKey = Object.fromEntries(tags.map((tag) => [tag.key, tag.values]));
    // The first keys in the order a reader looks for them; the SDK's tags after.
    expect(tags.map((tag) => tag.key)).toEqual([
      'environment',
      'release',
      'browser',
      'os',
      'url',
      'plan',
    ]);
    expect(byKey.release).toEqual([
      { value: 'shop@2', count: 3, share: 0.75 },
      { value: 'shop@1', count: 1, share: 0.25 },
    ]);
    expect(byKey.browser).toEqual([
      { value: 'Chrome 156', count: 3, share: 0.75 },
      { value: 'Firefox 140', count: 1, share: 0.25 },
    ]);
    expect(byKey.os!.map((v) => v.value)).toEqual(['Linux', 'Windows 10']);
    // One page, whatever its query string.
    expect(byKey.url).toEqual([{ value: 'https://shop.test/cart', count: 4, share: 1 }]);
    expect(byKey.plan![0]).toEqual({ value: 'pro', count: 3, share: 0.75 });

    const hours = await occurrenceHours(service.ctx.db, ws.id, group!.id);
    expect(hours).toHaveLength(24);
    expect(hours[23]).toBe(4);
    expect(hours.slice(0, 23).every((n) => n === 0)).toBe(true);
  });
});
