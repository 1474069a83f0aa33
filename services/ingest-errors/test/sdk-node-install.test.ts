import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createWorkspace } from '@ferry/testing';
import { listErrorGroups } from '@ferry/workspace';
import { startIngestService, type IngestService } from './support/sdk-service.js';

const run = promisify(execFile);
const sdkDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../packages/sdk-node',
);

const APP = `
import { init, captureException, flush } from '@ferry/sdk-node';

init({ publicKey: process.env.FERRY_PUBLIC_KEY, endpoint: process.env.FERRY_URL, environment: 'production' });

class LedgerClosed extends Error {}
captureException(new LedgerClosed('ledger 2026-11 is closed'), { job: 'close-books' });
if (!(await flush(5000))) process.exit(2);
`;

/**
 * packages/sdk-node as its README tells a user to use it: built to JavaScript, installed with npm
 * into an app of its own, run by plain `node` (no TypeScript loader), reporting to the service.
 */
describe('sdk-node built and installed into a plain Node app', () => {
  let service: IngestService;
  let tmp: string;

  beforeAll(async () => {
    service = await startIngestService();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-sdk-node-'));
  });

  afterAll(async () => {
    fs.rmSync(tmp, { recursive: true, force: true });
    await service.close();
  });

  it('npm install <built folder> + node app.js: the report is stored', async () => {
    const dist = path.join(tmp, 'sdk');
    await run(process.execPath, [path.join(sdkDir, 'build.mjs'), dist], { timeout: 60_000 });
    const app = path.join(tmp, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(
      path.join(app, 'package.json'),
      '{"name":"app","private":true,"type":"module"}',
    );
    fs.writeFileSync(path.join(app, 'app.js'), APP);
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', dist], {
      cwd: app,
      timeout: 60_000,
    });
    const ws = await createWorkspace(service.ctx.db);
    await run(process.execPath, ['app.js'], {
      cwd: app,
      timeout: 30_000,
      env: { ...process.env, FERRY_PUBLIC_KEY: ws.public_key, FERRY_URL: service.url },
    });
    await service.waitForOccurrences(ws.id, 1);
    const [group] = (await listErrorGroups(service.ctx.db, ws.id)).groups;
    expect(group).toMatchObject({
      error_class: 'LedgerClosed',
      latest_message: 'ledger 2026-11 is closed',
      source: 'node',
    });
  });
});
