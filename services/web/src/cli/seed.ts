import { loadConfig } from '@ferry/core';
import { createDb, migrateToLatest } from '@ferry/db';
import { exitOnConfigError } from '@ferry/http';
import { seedDemo, type SeedResult } from '../seed.js';
import { parseSeedArgs } from './seed-args.js';

// `pnpm --silent seed --json`: a new demo workspace per call (`--count N`: N of them). With --json,
// stdout carries exactly one JSON object per workspace, one a line, and nothing else (progress goes
// to stderr): a single call prints exactly one object, as before --count existed.
const args = parseSeedArgs(process.argv.slice(2));
if (args.problem) {
  process.stderr.write(`${args.problem}\n`);
  process.exit(2);
}
let config;
try {
  config = loadConfig();
} catch (error) {
  exitOnConfigError(error);
}

function describe(result: SeedResult): string {
  return [
    `Seeded workspace ${result.workspace.id} (${result.base_url}/w/${result.workspace.id}/${result.workspace.slug})`,
    `  owner   ${result.owner.email} / ${result.owner.password}`,
    `  member  ${result.member.email} / ${result.member.password}`,
    `  guest   ${result.guest.email} / ${result.guest.password}`,
    `  room    ${result.room.url}`,
    `  tokens  dispatch ${result.tokens.dispatch}`,
    `          tenant:write ${result.tokens.tenant_write}`,
    `          tenant:read ${result.tokens.tenant_read}`,
    `  incoming webhook ${result.incoming_webhook.url}`,
    ...(result.outgoing_webhook
      ? [
          `  outgoing webhook ${result.outgoing_webhook.id} (secret ${result.outgoing_webhook.secret})`,
        ]
      : []),
    '',
  ].join('\n');
}

await migrateToLatest(config.DATABASE_DIRECT_URL);
const db = createDb(config.DATABASE_URL, { max: 2 });
try {
  for (let i = 0; i < args.count; i++) {
    const result = await seedDemo(db, config, { outgoingUrl: args.outgoingUrl });
    process.stdout.write(args.json ? `${JSON.stringify(result)}\n` : describe(result));
  }
} finally {
  await db.destroy();
}
