import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, freePort, killAll, type TestContext } from '@ferry/testing';
import { plain, runStart, type StartRun } from './support/terminal.js';

/**
 * Issue 42, "the terminal, for a person": `npm start` at a terminal prints one banner, each
 * warning once for every process, one short line per request that is not a static asset, and
 * "stopped" after Ctrl-C; piped, its lines stay JSON, and successful static assets are not logged
 * there either. The real entry (the bootstrap, the stores check, the build, a cluster of two).
 */
describe('npm start, as a person reads it', () => {
  let ctx: TestContext;
  const runs: StartRun[] = [];

  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await killAll(runs);
    await ctx.close();
  });

  /** A newcomer's environment: a development start without APP_SECRET, at the default level. */
  async function environment(): Promise<{ env: Record<string, string>; url: string }> {
    const port = await freePort();
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries({ ...process.env, ...ctx.env })) {
      if (value !== undefined && key !== 'APP_SECRET' && key !== 'LOG_FORMAT') env[key] = value;
    }
    Object.assign(env, {
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      PORT: String(port),
      FERRY_PROCESSES: '2',
    });
    return { env, url: `http://127.0.0.1:${port}` };
  }

  it('at a terminal: one banner, each warning once, a line a page, none for an asset, stopped', async () => {
    const { env, url } = await environment();
    const run = runStart(env, { tty: true });
    runs.push(run);
    await run.printed(/Ferry is up: /, 'the banner', 90_000);
    await run.printed(/Ctrl-C stops it/, "the banner's last line");

    expect((await fetch(`${url}/assets/app.css`)).status).toBe(200);
    expect((await fetch(`${url}/login`)).status).toBe(200);
    expect((await fetch(`${url}/assets/missing.css`)).status).toBe(404);
    await run.printed(/GET \/login 200 \d+ ms\n/, "the sign-in page's request line");
    await run.printed(/GET \/assets\/missing\.css 404 \d+ ms\n/, "the missing asset's line");

    // Ctrl-C: the terminal sends SIGINT to every process of the foreground group.
    run.child.stdin?.write('\x03');
    await run.printed(/stopped\n/, '"stopped" after Ctrl-C', 40_000);
    expect((await run.exited).code).toBe(0);

    const screen = plain(run.stdout());
    // The terminal echoes Ctrl-C as `^C`, on a line of its own or (a race with the app's next
    // write) at the start of the next line: either way it is the terminal's, not the app's.
    const lines = screen
      .split('\n')
      .map((line) => line.replace(/^\^C/, ''))
      .filter((line) => line.trim());
    // Nothing before the warning and the banner: no build line, no stores check.
    expect(lines[0]).toMatch(/WARN.*APP_SECRET is not set/);
    expect(lines[1]).toMatch(new RegExp(`INFO.*Ferry is up: http://localhost:${env.PORT}$`));
    expect(screen.match(/APP_SECRET is not set/g)).toHaveLength(1);
    expect(screen).toMatch(/^ {2}processes {2}2\b/m);
    expect(screen).toMatch(/^ {2}database {3}postgres:\/\/\S+/m);
    expect(screen).toMatch(/^ {2}redis {6}redis:\/\/\S+/m);
    expect(screen).not.toMatch(/listening|shutting down|duty/);
    expect(screen).not.toContain('"msg"');
    // The page's entry is one line: no req/res dump follows it.
    const page = lines.findIndex((line) => /GET \/login 200 \d+ ms$/.test(line));
    expect(lines[page + 1]).toMatch(/^\[\d\d:\d\d:\d\d\] /);
    expect(screen).not.toContain('/assets/app.css');
    expect(screen.match(/stopped/g)).toHaveLength(1);
    // The drain is a sentence, not a dump of fields.
    expect(screen).toMatch(/INFO.*stopping \(SIGINT\): draining 2 processes$/m);
    expect(screen).not.toMatch(/\{"\w+":/);
    expect(lines.at(-1)).toMatch(/INFO.*stopped$/);
  });

  it('piped: every line JSON, successful assets unlogged, failures logged, warning once', async () => {
    const { env, url } = await environment();
    const run = runStart(env, { tty: false });
    runs.push(run);
    await run.printed(/Ferry is up: /, 'the JSON banner', 90_000);

    expect((await fetch(`${url}/assets/app.css`)).status).toBe(200);
    expect((await fetch(`${url}/login`)).status).toBe(200);
    expect((await fetch(`${url}/assets/missing.css`)).status).toBe(404);
    await run.printed(/"msg":"GET \/login 200 \d+ ms"/, "the sign-in page's request line");
    await run.printed(/"msg":"GET \/assets\/missing\.css 404 \d+ ms"/, "the missing asset's line");

    // What a process manager sends; the bootstrap passes it on to the primary.
    run.child.kill('SIGTERM');
    await run.printed(/"msg":"stopped"/, '"stopped" after SIGTERM', 40_000);
    expect((await run.exited).code).toBe(0);

    const entries = run
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        try {
          return JSON.parse(line) as { msg: string; req?: { url: string }; level: number };
        } catch {
          throw new Error(`not a JSON line: ${line}`);
        }
      });
    expect(run.stderr()).toBe('');
    expect(entries.filter((e) => e.msg.includes('APP_SECRET'))).toHaveLength(1);
    expect(entries.find((e) => e.msg.startsWith('Ferry is up'))).toMatchObject({
      processes: 2,
      database: expect.stringMatching(/^postgres:\/\//) as unknown,
    });
    expect(entries.find((e) => e.req?.url === '/login')).toMatchObject({
      res: { statusCode: 200 },
    });
    expect(entries.filter((e) => JSON.stringify(e).includes('/assets/app.css'))).toEqual([]);
  });
});
