import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenAPI3 } from 'openapi-typescript';
import { createFerryClient } from '@ferry/client';
import { clientTypes } from '@ferry/client/client-types';
import { createApiToken, createWorkspace, waitUntil } from '@ferry/testing';
import { startFerry, type FerryHarness } from './support/ferry.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../..', import.meta.url));
const at = (...parts: string[]) => path.join(root, ...parts);

/**
 * Issue 46, the typed client: packages/client's types are what openapi-typescript writes for the
 * committed description (so a change in the API shows in them), the client lists errors against
 * `pnpm start` in-repo, and a scratch project outside the monorepo, holding only openapi-fetch
 * (installed offline from packed tarballs, never the registry) and the generated types, type-checks
 * a script that lists errors with a token and runs it.
 */
describe('the generated API client', () => {
  let ferry: FerryHarness;
  let token: string;
  let scratch: string | undefined;

  beforeAll(async () => {
    ferry = await startFerry();
    const workspace = await createWorkspace(ferry.ctx.db);
    token = (await createApiToken(ferry.ctx.db, workspace, { scopes: ['tenant:read'] })).raw;
    const report = await fetch(`${ferry.url}/ingest/errors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-tenant': workspace.public_key },
      body: JSON.stringify({
        errors: [
          { error_class: 'NoMethodError', message: 'undefined method', backtrace: ['a.rb:1'] },
        ],
      }),
    });
    expect(report.status).toBe(202);
  });
  afterAll(async () => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    await ferry?.close();
  });

  it('has the types openapi-typescript writes for docs/openapi.json', async () => {
    const description = JSON.parse(readFileSync(at('docs/openapi.json'), 'utf8')) as OpenAPI3;
    const committed = readFileSync(at('packages/client/src/api.d.ts'), 'utf8');
    expect(
      committed === (await clientTypes(description)),
      'packages/client/src/api.d.ts is stale: run pnpm --filter @ferry/client generate',
    ).toBe(true);
  });

  it('lists errors with a token, typed by the description', async () => {
    const client = createFerryClient(ferry.url, token);
    let classes: string[] = [];
    await waitUntil(async () => {
      const { data, error } = await client.GET('/api/v1/errors', {
        params: { query: { status: 'unresolved' } },
      });
      expect(error).toBeUndefined();
      classes = data!.groups.map((group) => group.error_class);
      return classes.length > 0;
    }, 'the reported error listed by the client');
    expect(classes).toEqual(['NoMethodError']);
    const refused = await createFerryClient(ferry.url, 'fry_not-a-token').GET('/api/v1/errors');
    expect(refused.response.status).toBe(401);
    expect(refused.error?.error.code).toBe('invalid_token');
  });

  it('works from a project outside the monorepo with only openapi-fetch and the types', async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'ferry-client-'));
    // openapi-fetch and its one dependency, packed from the store the monorepo installed. Copied
    // first: pnpm's store hard-links identical files (index.d.mts and index.d.ts are one inode),
    // `npm pack` keeps them as tar hard links, and npm's install skips those, types and all.
    const store = at('node_modules/.pnpm');
    const tarballs: string[] = [];
    for (const [name, dir] of [
      ['openapi-fetch', 'openapi-fetch@0.17.0/node_modules/openapi-fetch'],
      [
        'openapi-typescript-helpers',
        'openapi-typescript-helpers@0.1.0/node_modules/openapi-typescript-helpers',
      ],
    ] as const) {
      const copy = path.join(scratch, 'packing', name);
      cpSync(path.join(store, dir), copy, { recursive: true });
      const { stdout } = await run(
        'npm',
        ['pack', '--ignore-scripts', copy, '--pack-destination', scratch],
        { cwd: scratch },
      );
      tarballs.push(`./${stdout.trim().split('\n').pop()!}`);
    }
    writeFileSync(
      path.join(scratch, 'package.json'),
      JSON.stringify({ name: 'ferry-client-scratch', private: true, type: 'module' }),
    );
    await run(
      'npm',
      ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', ...tarballs],
      {
        cwd: scratch,
      },
    );
    copyFileSync(at('packages/client/src/api.d.ts'), path.join(scratch, 'api.d.ts'));
    writeFileSync(
      path.join(scratch, 'list-errors.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

declare const process: { env: Record<string, string | undefined> };

const client = createClient<paths>({
  baseUrl: process.env.FERRY_URL!,
  headers: { authorization: \`Bearer \${process.env.FERRY_TOKEN!}\` },
});
const { data, error } = await client.GET('/api/v1/errors', { params: { query: { page: 1 } } });
if (error) throw new Error(error.error.message);
const classes: string[] = data.groups.map((group) => group.error_class);
console.log(JSON.stringify({ total: data.total_groups, classes }));
`,
    );
    writeFileSync(
      path.join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['list-errors.ts'],
      }),
    );
    // Type-checked against the generated types, then compiled, by TypeScript (the monorepo's tsc
    // binary: the scratch project installs no compiler).
    await run(process.execPath, [at('node_modules/typescript/bin/tsc'), '-p', scratch], {
      cwd: scratch,
    }).catch((error: { stdout?: string }) => {
      throw new Error(`the scratch project does not type-check:\n${error.stdout ?? ''}`);
    });
    const { stdout } = await run(process.execPath, [path.join(scratch, 'list-errors.js')], {
      cwd: scratch,
      env: { ...process.env, FERRY_URL: ferry.url, FERRY_TOKEN: token },
    });
    expect(JSON.parse(stdout)).toEqual({ total: 1, classes: ['NoMethodError'] });
  });
});
