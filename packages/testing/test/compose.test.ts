import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const checker = path.join(repoRoot, 'infra', 'check-compose.mjs');

async function check(file?: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, [checker, ...(file ? [file] : [])]);
    return { code: 0, out: stdout };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, out: failed.stderr };
  }
}

describe('infra/check-compose.mjs (pnpm check:compose)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ferry-compose-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('passes the repository compose file: schema-valid, every service, scalable', async () => {
    const result = await check();
    expect(result).toMatchObject({ code: 0 });
    expect(result.out).toContain('matches the Compose Specification schema');
  });

  it('names what is wrong: unknown keys, missing services, pinned names, published ports', async () => {
    const file = path.join(dir, 'bad.yml');
    const real = await fs.readFile(path.join(repoRoot, 'docker-compose.yml'), 'utf8');
    // The real file with the relay gone and webhooks-out made unscalable and misspelt.
    const bad = real
      .replace(/\n {2}relay:\n(?: {4}.*\n)+/, '\n')
      .replace(
        /\n {2}webhooks-out:\n/,
        '\n  webhooks-out:\n    container_name: out\n    ports: ["9000:9000"]\n    comand: [x]\n',
      );
    expect(bad).not.toContain('services/relay/src/main.ts');
    await fs.writeFile(file, bad);
    const result = await check(file);
    expect(result.code).toBe(1);
    expect(result.out).toContain('/services/relay is missing');
    expect(result.out).toContain('/services/webhooks-out pins container_name');
    expect(result.out).toContain('/services/webhooks-out publishes host ports');
    expect(result.out).toContain('"additionalProperty":"comand"');
  });

  it('refuses a file that is not YAML', async () => {
    const file = path.join(dir, 'broken.yml');
    await fs.writeFile(file, 'services: [\n');
    expect(await check(file)).toMatchObject({ code: 1 });
  });
});
