import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const guard = path.join(repoRoot, 'infra', 'check-boundaries.mjs');

async function check(root: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, [guard, '--root', root]);
    return { code: 0, out: stdout };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, out: failed.stderr };
  }
}

async function write(root: string, file: string, content: string | object): Promise<void> {
  const full = path.join(root, file);
  await fs.mkdir(path.dirname(full), { recursive: true });
  await fs.writeFile(
    full,
    typeof content === 'string' ? content : JSON.stringify(content, null, 2),
  );
}

/** The CI guard of DESIGN.md's rule "no service imports another service" (pnpm check runs it). */
describe('the service boundary guard', () => {
  let fake: string;

  beforeAll(async () => {
    // A small monorepo with one deliberate violation of each kind, and allowed imports beside them.
    fake = await fs.mkdtemp(path.join(os.tmpdir(), 'ferry-boundaries-'));
    await write(fake, 'services/shop/package.json', {
      name: '@fake/shop',
      exports: { '.': './src/index.ts', './orders': './src/orders.ts' },
    });
    await write(fake, 'services/shop/src/index.ts', "export { placeOrder } from './orders.js';\n");
    await write(fake, 'services/mail/package.json', {
      name: '@fake/mail',
      exports: { '.': './src/index.ts' },
      dependencies: { '@fake/shop': 'workspace:*', '@fake/domain': 'workspace:*' },
    });
    await write(
      fake,
      'services/mail/src/send.ts',
      "import { order } from '@fake/shop/orders';\nimport { x } from '@fake/domain';\n",
    );
    await write(
      fake,
      'services/mail/test/send.test.ts',
      "const main = new URL('../../shop/src/main.ts', import.meta.url);\n" +
        "const lazy = await import('../../shop/src/index.js');\n",
    );
    await write(fake, 'packages/domain/package.json', { name: '@fake/domain' });
    await write(fake, 'packages/domain/src/a.ts', "export { y } from '@fake/shop';\n");
    await write(fake, 'services/all/package.json', {
      name: '@fake/all',
      dependencies: { '@fake/shop': 'workspace:*', '@fake/mail': 'workspace:*' },
    });
    await write(fake, 'services/all/src/main.ts', "import '@fake/shop';\nimport '@fake/mail';\n");
    await write(fake, 'bench/package.json', { name: '@fake/bench' });
    await write(fake, 'bench/run.ts', "import { order } from '@fake/shop';\n");
  });
  afterAll(async () => {
    await fs.rm(fake, { recursive: true, force: true });
  });

  it('passes on this repository', async () => {
    const result = await check(repoRoot);
    expect(result).toEqual({
      code: 0,
      out: 'boundaries: no package or service imports a service\n',
    });
  });

  it('fails on each deliberate violation, naming the file and line, and allows all and bench', async () => {
    const result = await check(fake);
    expect(result.code).toBe(1);
    const lines = result.out.trim().split('\n').slice(1);
    expect(lines.map((line) => line.trim().split(':')[0]).sort()).toEqual([
      'packages/domain/src/a.ts',
      'services/mail/package.json',
      'services/mail/src/send.ts',
      'services/mail/test/send.test.ts',
      'services/mail/test/send.test.ts',
      'services/shop/package.json',
    ]);
    expect(result.out).toContain('services/mail/src/send.ts:1: imports @fake/shop/orders');
    expect(result.out).toContain(
      'services/mail/test/send.test.ts:1: imports ../../shop/src/main.ts (inside services/shop)',
    );
    expect(result.out).toContain(
      'services/mail/test/send.test.ts:2: imports ../../shop/src/index.js (inside services/shop)',
    );
    expect(result.out).toContain('packages/domain/src/a.ts:1: imports @fake/shop');
    expect(result.out).toContain('services/mail/package.json: dependencies lists the service');
    expect(result.out).toContain(
      'services/shop/package.json: a service exports subpaths (./orders)',
    );
  });
});
