import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { createApiToken, createWorkspace } from '@ferry/testing';
import type { Workspace } from '@ferry/db';
import { startIngestService, type IngestService } from './support/sdk-service.js';
import { writeZip, type ZipEntry } from './support/zip.js';

/**
 * The endpoints sentry-cli uploads source maps to (issue 41), driven by hand with what the real
 * client never sends: chunks whose names lie, gzip and zip bombs, bundles past the limits, bad
 * tokens and orgs, bad release versions. Each must be a 4xx in Sentry's error shape,
 * `{"detail": "..."}` (which sentry-cli prints as "sentry reported an error: <detail>", see
 * /tmp/scli/PROTOCOL.md §0 and sentry-cli src/api/errors/api_error.rs), never a 5xx — sentry-cli
 * does not retry a 500 and says nothing useful about it — and must store nothing.
 *
 * The wire format is sentry-cli's (src/api/mod.rs `upload_chunks`, `assemble_artifact_bundle`):
 * multipart parts named `file` or `file_gzip` whose filename is the chunk's SHA-1, then an
 * assemble naming the bundle's SHA-1 and its chunks' SHA-1s in order.
 */

const sha1 = (data: Buffer): string => createHash('sha1').update(data).digest('hex');
const MiB = 1024 * 1024;

interface Answer {
  status: number;
  detail: string;
}

/** Every answer of this file: none may be a 5xx (checked after each call and once at the end). */
const statuses: { what: string; status: number }[] = [];

async function answer(what: string, response: Response): Promise<Answer> {
  statuses.push({ what, status: response.status });
  expect(response.status, what).toBeLessThan(500);
  const text = await response.text();
  if (response.status < 400) return { status: response.status, detail: '' };
  // Sentry's shape, and sentry-cli only reads JSON when the media type is application/json.
  expect(response.headers.get('content-type'), what).toMatch(/^application\/json\b/);
  const body = JSON.parse(text) as { detail?: unknown };
  expect(typeof body.detail, `${what}: ${text}`).toBe('string');
  return { status: response.status, detail: body.detail as string };
}

interface Uploader {
  ws: Workspace;
  token: string;
  base: string;
  chunkPost(
    what: string,
    body: FormData | Buffer | string,
    headers?: Record<string, string>,
  ): Promise<Answer>;
  assemble(what: string, body: unknown): Promise<Answer>;
  /** Stores one raw chunk the way sentry-cli sends it (`file`, no compression). */
  upload(chunk: Buffer): Promise<string>;
  /** Uploads `zip` as a single chunk and assembles it. */
  assembleZip(what: string, zip: Buffer): Promise<Answer>;
  stored(): Promise<{ bundles: number; files: number; chunks: number }>;
}

function uploader(service: IngestService, ws: Workspace, token: string): Uploader {
  const base = `${service.url}/api/0/organizations/${ws.slug}`;
  const auth = { authorization: `Bearer ${token}` };
  const count = async (table: 'artifact_bundles' | 'artifact_files' | 'upload_chunks') => {
    const row = await service.ctx.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const self: Uploader = {
    ws,
    token,
    base,
    async chunkPost(what, body, headers = {}) {
      const response = await fetch(`${base}/chunk-upload/`, {
        method: 'POST',
        headers: { ...auth, ...headers },
        body: Buffer.isBuffer(body) ? new Uint8Array(body) : body,
      });
      return answer(what, response);
    },
    async assemble(what, body) {
      const response = await fetch(`${base}/artifactbundle/assemble/`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return answer(what, response);
    },
    async upload(chunk) {
      const checksum = sha1(chunk);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(chunk)]), checksum);
      const result = await self.chunkPost(`upload ${checksum}`, form);
      expect(result.status, result.detail).toBe(200);
      return checksum;
    },
    async assembleZip(what, zip) {
      const chunk = await self.upload(zip);
      return self.assemble(what, { checksum: chunk, chunks: [chunk], projects: ['web'] });
    },
    async stored() {
      return {
        bundles: await count('artifact_bundles'),
        files: await count('artifact_files'),
        chunks: await count('upload_chunks'),
      };
    },
  };
  return self;
}

/** A form with one part per [field, filename, bytes]. */
function form(parts: readonly [string, string, Buffer][]): FormData {
  const body = new FormData();
  for (const [field, filename, data] of parts) {
    body.append(field, new Blob([new Uint8Array(data)]), filename);
  }
  return body;
}

const manifest = (files: Record<string, unknown>): ZipEntry => ({
  name: 'manifest.json',
  data: Buffer.from(JSON.stringify({ files, org: 'x', project: 'web' })),
});
const script: ZipEntry = { name: 'files/_/_/app.js', data: Buffer.from('console.log(1);\n') };
const scriptManifest = manifest({
  'files/_/_/app.js': { type: 'minified_source', url: '~/app.js' },
});

describe('sentry-cli upload endpoints and hostile uploads', () => {
  let service: IngestService;
  /** The same service with a 1 MB source map quota. */
  let small: IngestService;
  let up: Uploader;

  beforeAll(async () => {
    [service, small] = await Promise.all([
      startIngestService(),
      startIngestService({ sourceMapQuotaMb: 1 }),
    ]);
    const ws = await createWorkspace(service.ctx.db);
    const token = await createApiToken(service.ctx.db, ws, { scopes: ['releases:write'] });
    up = uploader(service, ws, token.raw);
  });

  afterAll(async () => {
    await Promise.all([service?.close(), small?.close()]);
  });

  describe('chunk POST', () => {
    const data = Buffer.from('a chunk of a bundle');

    it.each<[string, () => FormData | Buffer | string, Record<string, string>, number, RegExp]>([
      [
        'a filename that is not a SHA-1',
        () => form([['file', 'bundle.zip', data]]),
        {},
        400,
        /^A chunk's filename must be its SHA-1 \(40 lower-case hex digits\); got "bundle\.zip"\.$/,
      ],
      [
        'data whose SHA-1 is not its filename (a checksum that lies)',
        () => form([['file', sha1(Buffer.from('other bytes')), data]]),
        {},
        400,
        new RegExp(`does not match its checksum: its SHA-1 is ${sha1(data)}`),
      ],
      [
        'a file_gzip part that is not gzip',
        () => form([['file_gzip', sha1(data), data]]),
        {},
        400,
        /is not a valid gzip stream/,
      ],
      [
        // sentry-cli's chunks are at most chunkSize (8 MiB) unpacked; 50 MiB of zeros is ~50 KB.
        'a gzip bomb: a file_gzip part that unpacks past the chunk size',
        () => {
          const zeros = Buffer.alloc(50 * MiB);
          return form([['file_gzip', sha1(zeros), gzipSync(zeros)]]);
        },
        {},
        413,
        /unpacks past the chunk size \(8\.0 MB\)/,
      ],
      [
        'a body that is not multipart',
        () => JSON.stringify({ file: 'x' }),
        { 'content-type': 'application/json' },
        415,
        /multipart\/form-data/,
      ],
      [
        'a multipart content type without a boundary',
        () => '--x\r\n\r\n',
        { 'content-type': 'multipart/form-data' },
        400,
        /no boundary/,
      ],
      [
        'a multipart body cut off before its closing boundary',
        () =>
          `--cut\r\nContent-Disposition: form-data; name="file"; filename="${sha1(data)}"\r\n` +
          `Content-Type: application/octet-stream\r\n\r\n${data.toString()}`,
        { 'content-type': 'multipart/form-data; boundary=cut' },
        400,
        // Once an uncaught exception from busboy's part stream that took the process down.
        new RegExp(`^The multipart body is malformed: it ends inside chunk ${sha1(data)} `),
      ],
      [
        'an unknown field name',
        () => form([['upload', sha1(data), data]]),
        {},
        400,
        /Unknown part "upload": send "file" or "file_gzip"/,
      ],
    ])('%s', async (what, body, headers, status, detail) => {
      const result = await up.chunkPost(what, body(), headers);
      expect(result.status, result.detail).toBe(status);
      expect(result.detail).toMatch(detail);
      expect(await up.stored()).toEqual({ bundles: 0, files: 0, chunks: 0 });
    });

    it('more parts than chunksPerRequest', async () => {
      const options = await fetch(`${up.base}/chunk-upload/`, {
        headers: { authorization: `Bearer ${up.token}` },
      });
      expect(options.status).toBe(200);
      const { chunksPerRequest } = (await options.json()) as { chunksPerRequest: number };
      const parts = Array.from(
        { length: chunksPerRequest + 1 },
        (_, i): [string, string, Buffer] => {
          const chunk = Buffer.from(`chunk ${i}`);
          return ['file', sha1(chunk), chunk];
        },
      );
      const result = await up.chunkPost('too many parts', form(parts));
      expect(result.status, result.detail).toBe(413);
      expect(result.detail).toBe(`Send at most ${chunksPerRequest} chunks per request.`);
      // Not even the parts before the limit are kept: the request is refused as a whole.
      expect(await up.stored()).toEqual({ bundles: 0, files: 0, chunks: 0 });
    });

    it('chunks past the workspace quota are refused at the chunk POST, naming the quota', async () => {
      const ws = await createWorkspace(small.ctx.db);
      const token = await createApiToken(small.ctx.db, ws, { scopes: ['releases:write'] });
      const tight = uploader(small, ws, token.raw);
      // Random bytes, so the 1.2 MiB are 1.2 MiB whatever compression is used.
      const a = randomBytes(0.6 * MiB);
      const b = randomBytes(0.6 * MiB);
      const result = await tight.chunkPost(
        'two chunks past a 1 MB quota',
        form([
          ['file', sha1(a), a],
          ['file', sha1(b), b],
        ]),
      );
      expect(result.status, result.detail).toBe(413);
      expect(result.detail).toMatch(/past their 1 MB quota \(0\.0 MB in use, 1\.2 MB more sent\)/);
      expect(result.detail).toContain('SOURCE_MAP_QUOTA_MB');
      expect(await tight.stored()).toEqual({ bundles: 0, files: 0, chunks: 0 });

      // The quota counts what is already kept: one chunk fits, the next one does not.
      await tight.upload(a);
      const second = await tight.chunkPost(
        'a second chunk past the quota',
        form([['file', sha1(b), b]]),
      );
      expect(second.status, second.detail).toBe(413);
      expect(second.detail).toMatch(/past their 1 MB quota \(0\.6 MB in use, 0\.6 MB more sent\)/);
      expect(await tight.stored()).toEqual({ bundles: 0, files: 0, chunks: 1 });
    });
  });

  describe('assemble', () => {
    /** Assemble failures leave the chunks (they expire); no bundle or file may be stored. */
    const nothingAssembled = async (uploader: Uploader = up) => {
      const { bundles, files } = await uploader.stored();
      expect({ bundles, files }).toEqual({ bundles: 0, files: 0 });
    };

    it.each<[string, string | object, number, RegExp]>([
      ['a body that is not JSON', '{"checksum": ', 400, /not valid JSON/],
      ['a JSON array', '[]', 400, /expected object/],
      [
        'a checksum that is not a SHA-1',
        { checksum: 'abc', chunks: [sha1(Buffer.from('x'))] },
        400,
        /^checksum: a SHA-1 in lower-case hex$/,
      ],
      ['no chunks', { checksum: sha1(Buffer.from('x')), chunks: [] }, 400, /^chunks: /],
      [
        'more chunks than an assemble may name',
        {
          checksum: sha1(Buffer.from('x')),
          chunks: Array.from({ length: 65 }, (_, i) => sha1(Buffer.from(String(i)))),
        },
        400,
        /^chunks: .*64/,
      ],
    ])('%s', async (what, body, status, detail) => {
      const result = await up.assemble(what, body);
      expect(result.status, result.detail).toBe(status);
      expect(result.detail).toMatch(detail);
      await nothingAssembled();
    });

    it('a release version with a NUL character', async () => {
      // Checked before the chunks are even looked up; once a 500 when the bundle row was inserted.
      const zip = writeZip([script, scriptManifest]);
      const chunk = await up.upload(zip);
      const result = await up.assemble('assemble version with NUL', {
        checksum: chunk,
        chunks: [chunk],
        version: 'v1\u0000',
      });
      expect(result.status, result.detail).toBe(400);
      expect(result.detail).toBe('version: text without NUL characters (\\u0000)');
      await nothingAssembled();
    });

    it("chunks whose concatenation's SHA-1 is not the checksum", async () => {
      const zip = writeZip([script, scriptManifest]);
      const first = await up.upload(zip.subarray(0, 100));
      const second = await up.upload(zip.subarray(100));
      // In the wrong order: every chunk is there, the bundle they make is not the one named.
      const result = await up.assemble('chunks out of order', {
        checksum: sha1(zip),
        chunks: [second, first],
      });
      expect(result.status, result.detail).toBe(400);
      expect(result.detail).toBe(
        `The chunks do not add up to the bundle's checksum: their SHA-1 is ${sha1(
          Buffer.concat([zip.subarray(100), zip.subarray(0, 100)]),
        )}, not ${sha1(zip)}.`,
      );
      await nothingAssembled();
    });

    it.each<[string, () => Buffer, number, RegExp]>([
      [
        'chunks that are not a zip',
        () => Buffer.from('this is not a zip file at all'),
        400,
        /^The uploaded bundle is not a valid zip: .*central directory/,
      ],
      [
        'a zip without manifest.json',
        () => writeZip([script]),
        400,
        /^The bundle has no manifest\.json/,
      ],
      [
        'a manifest.json that is not JSON',
        () => writeZip([script, { name: 'manifest.json', data: Buffer.from('{files: ') }]),
        400,
        /^The bundle's manifest\.json is not valid JSON\.$/,
      ],
      [
        'a manifest.json of the wrong shape',
        () => writeZip([script, manifest({ 'files/_/_/app.js': { type: 'minified_source' } })]),
        400,
        /^The bundle's manifest\.json is not an artifact bundle manifest: files\.files\/_\/_\/app\.js\.url: /,
      ],
      [
        // PostgreSQL text cannot hold U+0000: once a 500 from the insert, now refused up front.
        'a manifest URL with a NUL character',
        () =>
          writeZip([
            script,
            manifest({ 'files/_/_/app.js': { type: 'minified_source', url: '~/a\u0000.js' } }),
          ]),
        400,
        /^The bundle's manifest\.json is not an artifact bundle manifest: files\.files\/_\/_\/app\.js\.url: text without NUL characters/,
      ],
      [
        // "A map of 100 MB": declared honestly, refused from its header before it is inflated.
        // Repetitive text deflates ~1000:1, so the zip is ~100 KB: one chunk.
        'a zip whose map is 100 MB unpacked',
        () =>
          writeZip([
            script,
            { name: 'files/_/_/app.js.map', data: Buffer.alloc(100 * 1000 * 1000, 'AAAA,') },
            manifest({
              'files/_/_/app.js': { type: 'minified_source', url: '~/app.js' },
              'files/_/_/app.js.map': { type: 'source_map', url: '~/app.js.map' },
            }),
          ]),
        413,
        /^files\/_\/_\/app\.js\.map is 95\.4 MB unpacked; the largest file accepted is 40\.0 MB\.$/,
      ],
    ])('%s', async (what, zip, status, detail) => {
      const result = await up.assembleZip(what, zip());
      expect(result.status, result.detail).toBe(status);
      expect(result.detail).toMatch(detail);
      await nothingAssembled();
    });

    it('a zip bomb whose header declares 1 KiB is refused at the first bytes past it', async () => {
      // 64 MiB of zeros deflate to ~64 KB; both headers say 1024 bytes. yauzl's
      // validateEntrySizes (yauzl README, "validateEntrySizes") fails the read as soon as more
      // bytes come out than declared, so the entry is never inflated in full.
      const bomb = Buffer.alloc(64 * MiB);
      const zip = writeZip([
        { name: 'files/_/_/app.js', data: bomb, declaredSize: 1024 },
        scriptManifest,
      ]);
      expect(zip.length).toBeLessThan(MiB);
      const result = await up.assembleZip('a zip bomb', zip);
      expect(result.status, result.detail).toBe(400);
      const stopped = /too many bytes in the stream\. expected 1024\. got at least (\d+)/.exec(
        result.detail,
      );
      expect(stopped, result.detail).not.toBeNull();
      expect(result.detail).toMatch(
        /^The uploaded bundle is not a valid zip: files\/_\/_\/app\.js: /,
      );
      // Stopped within the first inflate buffers, not after 64 MiB.
      expect(Number(stopped![1])).toBeLessThan(MiB);
      await nothingAssembled();
    });

    it("a bundle that would unpack past the workspace's quota", async () => {
      const ws = await createWorkspace(small.ctx.db);
      const token = await createApiToken(small.ctx.db, ws, { scopes: ['releases:write'] });
      const tight = uploader(small, ws, token.raw);
      // 2 MiB of one letter: a zip of a few KB that fits the 1 MB quota until it is unpacked.
      const zip = writeZip([
        { name: 'files/_/_/app.js', data: Buffer.alloc(2 * MiB, 'a') },
        scriptManifest,
      ]);
      const result = await tight.assembleZip('a bundle past the quota', zip);
      expect(result.status, result.detail).toBe(413);
      expect(result.detail).toMatch(
        /^The bundle unpacks to more than 1\.0 MB, what is left of the workspace's source map quota\.$/,
      );
      await nothingAssembled(tight);
    });
  });

  describe('auth', () => {
    let other: Workspace;
    beforeAll(async () => {
      other = await createWorkspace(service.ctx.db);
    });

    const options = (org: string, authorization?: string) =>
      fetch(`${service.url}/api/0/organizations/${org}/chunk-upload/`, {
        headers: authorization ? { authorization } : {},
      });

    it('no token: 401', async () => {
      const result = await answer('no token', await options(up.ws.slug));
      expect(result.status).toBe(401);
      expect(result.detail).toMatch(/Send an API token in the Authorization header/);
    });

    it('a malformed token: 401', async () => {
      const result = await answer('malformed token', await options(up.ws.slug, 'Bearer fry_nope'));
      expect(result.status).toBe(401);
      expect(result.detail).toMatch(
        /This API token is not valid: it is malformed, unknown or revoked/,
      );
    });

    it('a token without releases:write: 403 naming releases:write', async () => {
      const token = await createApiToken(service.ctx.db, up.ws, { scopes: ['tenant:read'] });
      const result = await answer(
        'read-only token',
        await options(up.ws.slug, `Bearer ${token.raw}`),
      );
      expect(result.status).toBe(403);
      expect(result.detail).toContain('"releases:write"');
      // The refused token stores nothing either.
      const assemble = await fetch(`${up.base}/artifactbundle/assemble/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.raw}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          checksum: sha1(Buffer.from('x')),
          chunks: [sha1(Buffer.from('x'))],
        }),
      });
      expect((await answer('read-only assemble', assemble)).status).toBe(403);
    });

    it("another workspace's org: 403 saying which --org to pass", async () => {
      const result = await answer(
        "another workspace's org",
        await options(other.slug, `Bearer ${up.token}`),
      );
      expect(result.status).toBe(403);
      expect(result.detail).toBe(
        `This API token belongs to the workspace "${up.ws.slug}": pass --org ${up.ws.slug}.`,
      );
      // Nor can it upload into that workspace.
      const data = Buffer.from('crossing');
      const response = await fetch(
        `${service.url}/api/0/organizations/${other.slug}/chunk-upload/`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${up.token}` },
          body: form([['file', sha1(data), data]]),
        },
      );
      expect((await answer('cross-org chunk POST', response)).status).toBe(403);
      expect(await uploader(service, other, up.token).stored()).toEqual({
        bundles: 0,
        files: 0,
        chunks: 0,
      });
    });

    it('an unknown org slug: 403', async () => {
      const result = await answer(
        'unknown org',
        await options('no-such-org-anywhere', `Bearer ${up.token}`),
      );
      expect(result.status).toBe(403);
      expect(result.detail).toContain(`pass --org ${up.ws.slug}`);
    });
  });

  describe('releases', () => {
    const call = async (what: string, method: string, path: string, body: unknown) =>
      answer(
        what,
        await fetch(`${up.base}${path}`, {
          method,
          headers: { authorization: `Bearer ${up.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    const releases = () =>
      service.ctx.db
        .selectFrom('releases')
        .select('version')
        .where('workspace_id', '=', up.ws.id)
        .execute();

    it.each([
      ['a version with a slash', 'app/1.0'],
      ['an empty version', ''],
      // PostgreSQL text cannot hold U+0000: once a 500.
      ['a version with a NUL character', 'app\u00001.0'],
    ])('releases new with %s: 400', async (what, version) => {
      const result = await call(what, 'POST', '/releases/', { version, projects: ['web'] });
      expect(result.status).toBe(400);
      expect(result.detail).toMatch(/^version: /);
      expect(await releases()).toEqual([]);
    });

    it('a deploy for a release that does not exist: 404 with its reason', async () => {
      const result = await call(
        'deploy of unknown release',
        'POST',
        '/releases/nope-1.0/deploys/',
        {
          environment: 'production',
          name: null,
          url: null,
          dateStarted: null,
          dateFinished: new Date().toISOString(),
        },
      );
      expect(result.status).toBe(404);
      expect(result.detail).toBe(
        'No release "nope-1.0" in this workspace: create it with sentry-cli releases new.',
      );
      const deploys = await service.ctx.db
        .selectFrom('release_deploys')
        .select('id')
        .where('workspace_id', '=', up.ws.id)
        .execute();
      expect(deploys).toEqual([]);
    });

    it('a deploy with a NUL in its environment, and a NUL version in the path', async () => {
      const created = await call('releases new', 'POST', '/releases/', { version: 'nul-1.0' });
      expect(created.status).toBe(201);
      const deploy = await call(
        'deploy with NUL environment',
        'POST',
        '/releases/nul-1.0/deploys/',
        {
          environment: 'prod\u0000',
        },
      );
      expect(deploy.status).toBe(400);
      expect(deploy.detail).toBe('environment: text without NUL characters (\\u0000)');
      // A version no release can have names none: a 404, not a PostgreSQL error.
      const finalize = await call('finalize NUL version', 'PUT', '/releases/%00/', {
        dateReleased: new Date().toISOString(),
      });
      expect(finalize.status).toBe(404);
      expect(finalize.detail).toBe(
        'No release "\u0000" in this workspace: create it with sentry-cli releases new.',
      );
      const deploys = await service.ctx.db
        .selectFrom('release_deploys')
        .select('id')
        .where('workspace_id', '=', up.ws.id)
        .execute();
      expect(deploys).toEqual([]);
      expect(await releases()).toEqual([{ version: 'nul-1.0' }]);
    });

    it('finalize (PUT) of an unknown release: 404', async () => {
      const result = await call('finalize unknown release', 'PUT', '/releases/nope-2.0/', {
        projects: ['web'],
        dateReleased: new Date().toISOString(),
      });
      expect(result.status).toBe(404);
      expect(result.detail).toBe(
        'No release "nope-2.0" in this workspace: create it with sentry-cli releases new.',
      );
      expect((await releases()).map(({ version }) => version)).not.toContain('nope-2.0');
    });
  });

  it('no answer in this file was a 5xx', () => {
    expect(statuses.length).toBeGreaterThan(30);
    expect(statuses.filter(({ status }) => status >= 500)).toEqual([]);
    // The services' own record of every request they answered, the helpers' calls or not.
    const all = [...service.requests, ...small.requests];
    expect(all.filter(({ status }) => status >= 500)).toEqual([]);
  });
});
