import { sql } from 'kysely';
import { createMember, createWorkspace, startApp, type TestContext } from '@ferry/testing';
import { createWebApp, loadWebSettings, webDeps } from '@ferry/web';
import { Browser } from '../lib/browser.js';
import { log, ms, summarize, type Summary } from './stats.js';

/**
 * The Errors page benchmark: 1,000,000 occurrences over 50 workspaces at the retention limit
 * (20,000 occurrences in 2,000 groups each), built with generate_series; then the first page of
 * one of them, timed as an HTTP GET by a signed-in member (server time on loopback), as the
 * page's SQL alone, and against a ceiling (the trivial round trip `select 1`).
 */
export const WORKSPACES = 50;
export const OCCURRENCES_PER_WORKSPACE = 20_000;
export const GROUPS_PER_WORKSPACE = 2_000;
const REPEAT = 50;
const SOURCES = `array['ruby','js','api','mobile','node','python','php']`;

export interface ErrorsPageResult {
  buildSeconds: number;
  http: Summary | undefined;
  httpStatus: number;
  sql: Summary;
  explainMs: number[];
  ceiling: Summary;
}

async function buildDataset(ctx: TestContext): Promise<{ id: string; slug: string }[]> {
  const workspaces = [];
  for (let i = 0; i < WORKSPACES; i++) workspaces.push(await createWorkspace(ctx.db));
  for (const [w, workspace] of workspaces.entries()) {
    await sql`
      insert into error_groups (id, workspace_id, fingerprint, error_class, latest_message, source,
        occurrence_count, first_seen_at, last_seen_at)
      select 'egr_b' || ${w} || '_' || lpad(g::text, 5, '0'), ${workspace.id},
        encode(sha256((${workspace.id} || g)::bytea), 'hex'), 'BenchError' || g,
        'Something failed: value was undefined (' || g || ')', (${sql.raw(SOURCES)})[1 + g % 7],
        ${OCCURRENCES_PER_WORKSPACE / GROUPS_PER_WORKSPACE}, now() - interval '30 days',
        now() - (g * interval '37 seconds')
      from generate_series(1, ${GROUPS_PER_WORKSPACE}) g`.execute(ctx.db);
    await sql`
      insert into error_occurrences (id, workspace_id, group_id, error_class, message, backtrace,
        url, environment, context, source, occurred_at, received_at)
      select 'err_b' || ${w} || '_' || lpad(n::text, 6, '0'), ${workspace.id},
        'egr_b' || ${w} || '_' || lpad((1 + n % ${GROUPS_PER_WORKSPACE})::text, 5, '0'),
        'BenchError' || (1 + n % ${GROUPS_PER_WORKSPACE}), 'Something failed: value was undefined',
        array['at handler (https://app.example.test/assets/app.js:' || n % 997 || ':17)',
          'at dispatch (https://app.example.test/assets/vendor.js:2231:9)'],
        'https://app.example.test/orders/' || n, 'production', '{"attempt": 1}'::jsonb,
        (${sql.raw(SOURCES)})[1 + (1 + n % ${GROUPS_PER_WORKSPACE}) % 7],
        now() - (n * interval '1 second'), now() - (n * interval '1 second')
      from generate_series(1, ${OCCURRENCES_PER_WORKSPACE}) n`.execute(ctx.db);
  }
  await sql`analyze error_groups`.execute(ctx.db);
  await sql`analyze error_occurrences`.execute(ctx.db);
  await sql`analyze error_workspace_stats`.execute(ctx.db);
  return workspaces;
}

/** The page's queries (services/web/src/domain/errors.ts): first 25 groups, counts, retained. */
const pageQueries = (workspaceId: string) => [
  sql`select * from error_groups where workspace_id = ${workspaceId}
      order by last_seen_at desc, id desc limit 25 offset 0`,
  sql`select source, count(*) as n from error_groups where workspace_id = ${workspaceId}
      group by source`,
  sql`select retained_occurrences from error_workspace_stats where workspace_id = ${workspaceId}`,
];

async function timed(fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const started = performance.now();
    await fn();
    out.push(performance.now() - started);
  }
  return out;
}

export async function benchErrorsPage(ctx: TestContext): Promise<ErrorsPageResult> {
  const buildStarted = performance.now();
  const workspaces = await buildDataset(ctx);
  const buildSeconds = (performance.now() - buildStarted) / 1000;
  const target = workspaces[Math.floor(WORKSPACES / 2)]!;

  const ceiling = summarize(await timed(() => sql`select 1`.execute(ctx.db)));
  const sqlTimes = summarize(
    await timed(() => Promise.all(pageQueries(target.id).map((q) => q.execute(ctx.db)))),
  );
  const explainMs: number[] = [];
  for (const query of pageQueries(target.id)) {
    const rows = await sql<{
      'QUERY PLAN': string;
    }>`explain (analyze, format text) ${query}`.execute(ctx.db);
    const text = rows.rows.map((r) => r['QUERY PLAN']).join('\n');
    explainMs.push(Number(/Execution Time: ([\d.]+) ms/.exec(text)?.[1] ?? Number.NaN));
  }

  // The page itself, as a signed-in member, through the real web app.
  const member = await createMember(ctx.db, target, { role: 'member' });
  const web = createWebApp(webDeps(ctx, loadWebSettings(ctx.env)));
  const app = await startApp(web.app, (server) => web.realtime.attach(server));
  let http: Summary | undefined;
  let httpStatus = 0;
  try {
    const browser = new Browser(app.url);
    await browser.signIn(member.user.email, member.user.password);
    const path = `/w/${target.id}/${target.slug}/errors`;
    const first = await browser.request(path);
    httpStatus = first.status;
    if (first.status === 200) http = summarize(await timed(() => browser.request(path)));
    else log(`  GET ${path} answered ${first.status}: page not measured`);
  } finally {
    await web.realtime.close();
    await app.close();
  }
  log(
    `  dataset built in ${buildSeconds.toFixed(1)} s; SQL p50 ${ms(sqlTimes.p50)}, ` +
      `EXPLAIN ANALYZE ${explainMs.map((v) => ms(v)).join(' + ')}`,
  );
  return { buildSeconds, http, httpStatus, sql: sqlTimes, explainMs, ceiling };
}
