import { loadConfig } from '@ferry/core';
import { createDb, migrateToLatest } from '@ferry/db';
import { exitOnConfigError } from '@ferry/http';
import { seedDemo } from '../seed.js';

// `pnpm --silent seed --json`: a new demo workspace per call. With --json, stdout carries exactly
// one JSON object and nothing else (progress goes to stderr).
const json = process.argv.includes('--json');
let config;
try {
  config = loadConfig();
} catch (error) {
  exitOnConfigError(error);
}
await migrateToLatest(config.DATABASE_URL);
const db = createDb(config.DATABASE_URL, { max: 2 });
try {
  const result = await seedDemo(db, config);
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
        '',
      ].join('\n'),
    );
  }
} finally {
  await db.destroy();
}
