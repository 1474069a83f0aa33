import { sql, type Kysely } from 'kysely';

/**
 * Issue 44: an incoming key's optional GitHub signing secret. `POST /wh/in/<key>/github` checks
 * GitHub's `X-Hub-Signature-256` with it when it is set. Sealed (SecretBox, like the key itself),
 * because the HMAC needs the secret in clear: a hash of it could not verify anything. The key-cache
 * trigger on incoming_webhooks (0008) fires on this column too, so a changed secret reaches every
 * webhooks-in process at commit.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table incoming_webhooks
      add column github_secret_sealed text,
      add column github_secret_set_at timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table incoming_webhooks
      drop column github_secret_sealed,
      drop column github_secret_set_at`.execute(db);
}
