import { loadConfig } from '@ferry/core';
import { createDb, migrateToLatest } from '@ferry/db';
import { exitOnConfigError } from '@ferry/http';
import { seedDemo } from '../seed.js';

// `pnpm --silent seed --json`: a new demo workspace per call. With --json, stdout carries exactly
// one JSON object and nothing else (progress goes to stderr).
const json = process.argv.includes('--json');
const outgoingFlag = process.argv.indexOf('--outgoing-url');
const outgoingUrl = outgoingFlag >= 0 ? process.argv[outgoingFlag + 1] : undefined;
if (outgoingFlag >= 0 && !/^https?:\/\/\S+$/.test(outgoingUrl ?? '')) {
  process.stderr.write(
    '--outgoing-url needs an http(s) URL, e.g. --outgoing-url http://127.0.0.1:9000/hook\n',
  );
  process.exit(2);
}
let config;
try {
  config = loadConfig();
} catch (error) {
  exitOnConfigError(error);
}
await migrateToLatest(config.DATABASE_URL);
const db = createDb(config.DATABASE_URL, { max: 2 });
try {
  const result = await seedDemo(db, config, { outgoingUrl });
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } else {
    process.stdout.write(
      [
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
      ].join('\n'),
    );
  }
} finally {
  await db.destroy();
}
