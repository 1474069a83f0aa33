import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver } from '@ferry/testing';

const FIXTURE = fileURLToPath(new URL('./fixtures/crash.ts', import.meta.url));

function run(endpoint: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, endpoint], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('process hooks (in a child process: they exit it)', () => {
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    receiver.reply({ status: 202, body: '{"accepted":1,"ids":[]}' });
  });

  afterAll(async () => {
    await receiver.close();
  });

  it('reports the rejection and the uncaught exception, prints it and exits 1', async () => {
    const { code, stderr } = await run(receiver.url);
    expect(code).toBe(1);
    expect(stderr).toContain('TypeError: nobody caught this throw');
    const reports = receiver.requests.flatMap(
      (request) =>
        (JSON.parse(request.body) as { errors: { error_class: string; context: unknown }[] })
          .errors,
    );
    expect(reports).toEqual([
      expect.objectContaining({
        error_class: 'RangeError',
        context: { mechanism: 'unhandledRejection', handled: false },
      }),
      expect.objectContaining({
        error_class: 'TypeError',
        context: { mechanism: 'uncaughtException', handled: false },
      }),
    ]);
  });
});
