import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

const TOKEN = 'web-metrics-token-0123456789abcdef';

/** What a Prometheus scrape of web sees: route patterns only, and only with the token. */
describe('web /metrics', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb({ METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await web?.close();
  });

  const scrape = (headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
    fetch(`${web.url}/metrics`, { headers });

  it("labels workspace pages by pattern: no workspace's id or slug in any label", async () => {
    const { workspace, client, base } = await signedInSeat(web, 'admin');
    expect((await client.get(`${base}/members`)).status).toBe(200);
    expect((await client.get(`${base}/no-such-page`)).status).toBe(404);
    expect((await client.get(`/w/${workspace.id}/not-its-slug/members`)).status).toBeLessThan(500);

    const text = await (await scrape()).text();
    const durations = text.split('\n').filter((l) => l.startsWith('http_request_duration_seconds'));
    expect(durations.length).toBeGreaterThan(0);
    expect(text).toContain('route="/w/:workspaceId/:slug/members"');
    expect(text).toContain('route="unmatched"');
    expect(text).not.toContain(workspace.id);
    expect(text).not.toContain(workspace.slug);
    expect(text).not.toMatch(/wsp_/);
  });

  it('refuses a scrape without the bearer token (401, WWW-Authenticate) and serves it with', async () => {
    const refusals: Record<string, string>[] = [{}, { authorization: 'Bearer not-the-token' }];
    for (const headers of refusals) {
      const refused = await scrape(headers);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await refused.json()).toMatchObject({ error: { code: 'invalid_token' } });
    }
    const ok = await scrape();
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('http_request_duration_seconds');
  });
});
