import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '@ferry/db';
import {
  createFeedback,
  createMember,
  createWorkspace,
  jpegHeader,
  solidPng,
  webpHeader,
} from '@ferry/testing';
import { buildWidget } from '@ferry/widget';
import { SCREENSHOT_MAX_BYTES } from '@ferry/workspace';
import { FormClient, startWeb, type WebHarness } from './harness.js';

interface ErrorJson {
  error: { code: string; message: string; fields?: Record<string, string> };
}

const dataUrl = (bytes: Buffer, type = 'image/png') =>
  `data:${type};base64,${bytes.toString('base64')}`;

/**
 * The widget's screenshot (issue 28) on the server: the feedback endpoint takes it as a base64
 * data URL, checks it by its bytes (413 over 2 MB, 415 unless PNG/JPEG/WebP, 422 unreadable),
 * stores it with the ticket, and serves it only to members who can read the ticket.
 */
describe('feedback screenshots', () => {
  let web: WebHarness;
  let workspace: Workspace;
  beforeAll(async () => {
    web = await startWeb();
    workspace = await createWorkspace(web.ctx.db, { name: 'Acme Shop' });
  });
  afterAll(async () => {
    await web?.close();
  });

  /** A fresh visitor per call: the per-visitor rate limit stays out of the way. */
  async function post(body: unknown): Promise<Response> {
    const visitor = (await (
      await fetch(`${web.url}/widget/v1/visitors`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-tenant': workspace.public_key },
        body: '{}',
      })
    ).json()) as { visitor: { token: string } };
    return fetch(`${web.url}/widget/v1/feedback`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-tenant': workspace.public_key,
        'x-service-visitor': visitor.visitor.token,
        origin: 'http://shop.example.test',
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  const tickets = async () =>
    Number(
      (
        await web.ctx.db
          .selectFrom('feedback')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('workspace_id', '=', workspace.id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  async function refused(body: unknown, status: number, code: string): Promise<ErrorJson> {
    const before = await tickets();
    const res = await post(body);
    const json = (await res.json()) as ErrorJson;
    expect({ status: res.status, code: json.error.code }).toEqual({ status, code });
    // CORS on refusals too, so the widget can read the sentence.
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await tickets()).toBe(before);
    return json;
  }

  it('serves the capture chunk beside v1.js, for pages of any origin, by its hashed URL', async () => {
    const { capture } = await buildWidget();
    const res = await fetch(`${web.url}${capture.path}`, {
      headers: { origin: 'http://shop.test' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    // Compressed (fetch asks for gzip), so its ETag is the weak form of the chunk's own (#28 defect 4).
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('etag')).toBe(`W/${capture.etag}`);
    expect(await res.text()).toBe(capture.code);
    // Revalidation answers 304 to either form.
    for (const etag of [capture.etag, `W/${capture.etag}`]) {
      const again = await fetch(`${web.url}${capture.path}`, {
        headers: { 'if-none-match': etag },
      });
      expect({ etag, status: again.status }).toEqual({ etag, status: 304 });
    }
    // v1.js names exactly this URL.
    const bundle = await (await fetch(`${web.url}/widget/v1.js`)).text();
    expect(bundle).toContain(JSON.stringify(capture.path));
  });

  it('stores a PNG, JPEG or WebP with the ticket, typed by its bytes', async () => {
    const png = solidPng(64, 40, [0, 0, 0]);
    // The declared type is ignored: the bytes say PNG.
    const res = await post({ note: 'With a picture', screenshot: dataUrl(png, 'image/jpeg') });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const row = await web.ctx.db
      .selectFrom('feedback_screenshots')
      .selectAll()
      .where('feedback_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      workspace_id: workspace.id,
      content_type: 'image/png',
      width: 64,
      height: 40,
      byte_size: png.length,
    });
    expect(Buffer.compare(row.bytes, png)).toBe(0);

    for (const [bytes, type, size] of [
      [jpegHeader(390, 844), 'image/jpeg', [390, 844]],
      [webpHeader(1280, 800), 'image/webp', [1280, 800]],
    ] as const) {
      const sent = await post({ note: `As ${type}`, screenshot: dataUrl(bytes, type) });
      expect(sent.status).toBe(201);
      const stored = await web.ctx.db
        .selectFrom('feedback_screenshots')
        .select(['content_type', 'width', 'height'])
        .where('feedback_id', '=', ((await sent.json()) as { id: string }).id)
        .executeTakeFirstOrThrow();
      expect(stored).toEqual({ content_type: type, width: size[0], height: size[1] });
    }
    // Without one (null or absent), the ticket is filed as before.
    expect((await post({ note: 'No picture', screenshot: null })).status).toBe(201);
  });

  it('refuses other types (415), over 2 MB (413) and unreadable images (422), filing nothing', async () => {
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(40)]);
    const wrong = await refused(
      { note: 'x', screenshot: dataUrl(gif) },
      415,
      'unsupported_media_type',
    );
    expect(wrong.error.message).toBe('The screenshot must be a PNG, JPEG or WebP image.');
    const html = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    );
    await refused(
      { note: 'x', screenshot: dataUrl(html, 'image/png') },
      415,
      'unsupported_media_type',
    );

    // Just over the cap: a PNG signature and padding, 2 MB + 1 byte.
    const big = Buffer.alloc(SCREENSHOT_MAX_BYTES + 1);
    solidPng(1, 1, [0, 0, 0]).copy(big);
    const large = await refused({ note: 'x', screenshot: dataUrl(big) }, 413, 'payload_too_large');
    expect(large.error.message).toMatch(/larger than 2 MB/);
    // Far over it: body-parser's limit answers, in the same words.
    const huge = `{"note":"x","screenshot":"data:image/png;base64,${'A'.repeat(4 * 1024 * 1024)}"}`;
    const tooBig = await refused(huge, 413, 'payload_too_large');
    expect(tooBig.error.message).toMatch(/larger than 2 MB/);

    const truncated = solidPng(8, 8, [1, 2, 3]).subarray(0, 12);
    const damaged = await refused(
      { note: 'x', screenshot: dataUrl(truncated) },
      422,
      'validation_failed',
    );
    expect(damaged.error.fields).toEqual({ screenshot: damaged.error.message });
    for (const bad of [42, 'not a data url', 'data:image/png;base64,%%%', { data: 'x' }]) {
      const json = await refused({ note: 'x', screenshot: bad }, 422, 'validation_failed');
      expect(json.error.fields?.screenshot).toBeTruthy();
    }
  });

  it('serves it only to members of the workspace, as the checked type, never cached by others', async () => {
    const png = solidPng(120, 80, [200, 30, 30]);
    const res = await post({
      note: 'The total is wrong',
      page: { path: '/checkout' },
      screenshot: dataUrl(png),
    });
    const { id } = (await res.json()) as { id: string };
    const base = `/w/${workspace.id}/${workspace.slug}`;
    const url = `${base}/feedback/${id}/screenshot`;

    // A guest cannot read tickets (feedback.read), so not their screenshots either: 403 as on
    // the ticket page itself.
    const guestSeat = await createMember(web.ctx.db, workspace, { role: 'guest' });
    const guest = new FormClient(web.url);
    await guest.signIn(guestSeat.user.email, guestSeat.user.password);
    expect((await guest.raw(url)).status).toBe(403);
    expect((await guest.raw(`${base}/feedback/${id}`)).status).toBe(403);

    const memberSeat = await createMember(web.ctx.db, workspace, { role: 'member' });
    const member = new FormClient(web.url);
    await member.signIn(memberSeat.user.email, memberSeat.user.password);
    const image = await member.raw(url);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('x-content-type-options')).toBe('nosniff');
    expect(image.headers.get('content-disposition')).toBe(
      `inline; filename="screenshot-${id}.png"`,
    );
    expect(image.headers.get('cache-control')).toBe('private, no-store');
    expect(Buffer.compare(Buffer.from(await image.arrayBuffer()), png)).toBe(0);

    // The ticket page shows it: an image with alt text inside a link to the full size.
    const page = await member.get(`${base}/feedback/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<a class="screenshot-link" href="${url}"`);
    expect(page.text).toMatch(
      /<img\s+src="[^"]+\/screenshot"\s+width="120"\s+height="80"\s+loading="lazy"\s+alt="Screenshot of the page \/checkout as the reporter saw it, the picked element outlined"/,
    );
    expect(page.text).toContain('Open full size');

    // Signed out: a 404, not a redirect to the login that would say the image exists.
    const signedOut = await new FormClient(web.url).raw(url);
    expect(signedOut.status).toBe(404);
    expect(signedOut.headers.get('location')).toBeNull();
    expect(signedOut.headers.get('content-type')).not.toMatch(/image/);

    // A member of another workspace, with this URL or their own workspace's id in it: 404.
    const other = await createWorkspace(web.ctx.db, { name: 'Other Co' });
    const outsider = await createMember(web.ctx.db, other, { role: 'owner' });
    const stranger = new FormClient(web.url);
    await stranger.signIn(outsider.user.email, outsider.user.password);
    expect((await stranger.raw(url)).status).toBe(404);
    expect(
      (await stranger.raw(`/w/${other.id}/${other.slug}/feedback/${id}/screenshot`)).status,
    ).toBe(404);

    // A ticket without one, and junk ids: 404.
    const plain = await createFeedback(web.ctx.db, workspace, { note: 'No picture' });
    expect((await member.raw(`${base}/feedback/${plain.id}/screenshot`)).status).toBe(404);
    expect((await member.raw(`${base}/feedback/nope/screenshot`)).status).toBe(404);
    const noShot = await member.get(`${base}/feedback/${plain.id}`);
    expect(noShot.text).not.toContain('screenshot-link');
  });
});
