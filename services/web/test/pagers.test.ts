import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErrorGroup, createErrorOccurrence, createFeedback } from '@ferry/testing';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

/**
 * #28 defect 7: `?page=99` on any paged list never reads "Page 99 of 1"; it says the page does
 * not exist and links to the last page.
 */
describe('every pager past its last page', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web.close();
  });

  it('says there is no such page and links to the last one', async () => {
    const { client, base, workspace } = await signedInSeat(web, 'member');
    await createFeedback(web.ctx.db, workspace);
    const group = await createErrorGroup(web.ctx.db, workspace);
    await createErrorOccurrence(web.ctx.db, group);
    const lists = [
      `${base}/feedback`,
      `${base}/errors`,
      `${base}/errors/${group.id}`,
      `${base}/mentions`,
    ];
    for (const list of lists) {
      const page = await client.get(`${list}?page=99`);
      expect({ list, status: page.status }).toEqual({ list, status: 200 });
      expect({ list, wrong: /Page 99 of/.test(page.text) }).toEqual({ list, wrong: false });
      expect({ list, says: /(no page 99|Page 99 does not exist)/.test(page.text) }).toEqual({
        list,
        says: true,
      });
      // The last page here is page 1, whose address has no ?page.
      expect({ list, linksLast: page.text.includes(`href="${list}"`) }).toEqual({
        list,
        linksLast: true,
      });
    }
  });
});
