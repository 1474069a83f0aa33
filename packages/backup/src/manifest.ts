import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** The files of a backup directory, beside manifest.json. */
export const POSTGRES_FILE = 'postgres.dump';
export const REDIS_FILE = 'redis-keys.jsonl';
export const MANIFEST_FILE = 'manifest.json';

const fileSchema = z.object({
  name: z.string(),
  bytes: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

/** manifest.json: what a backup holds, from what, and at which migration level. */
export const manifestSchema = z.object({
  format: z.literal(1),
  /** When the backup started and finished (this machine's clock). */
  started_at: z.iso.datetime(),
  finished_at: z.iso.datetime(),
  ferry: z.object({
    /** The checkout's commit that took it, when it is a git checkout. */
    commit: z.string().nullable(),
    node: z.string(),
  }),
  migrations: z.object({
    /** The newest applied migration: the backup's level. */
    latest: z.string().nullable(),
    applied: z.array(z.string()),
  }),
  postgres: z.object({
    database: z.string(),
    server_version: z.string(),
    pg_dump: z.string(),
    /** When the dump's snapshot began, by the Postgres server's clock. */
    taken_at: z.iso.datetime(),
    file: fileSchema,
  }),
  redis: z.object({
    server_version: z.string(),
    db: z.number().int().min(0),
    prefix: z.string(),
    keys: z.number().int().min(0),
    /**
     * A moment just before Redis' snapshot, by the Postgres server's clock (so it compares with
     * outbox.sent_at): the restore relays events sent from then on again.
     */
    taken_after: z.iso.datetime(),
    file: fileSchema,
  }),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type BackupFile = z.infer<typeof fileSchema>;

export async function describeFile(dir: string, name: string): Promise<BackupFile> {
  const file = path.join(dir, name);
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return { name, bytes: (await fs.promises.stat(file)).size, sha256: hash.digest('hex') };
}

/** Reads and checks a backup's manifest, and that its files are the ones it describes. */
export async function readManifest(dir: string): Promise<Manifest> {
  let json: unknown;
  try {
    json = JSON.parse(await fs.promises.readFile(path.join(dir, MANIFEST_FILE), 'utf8'));
  } catch (error) {
    throw new Error(`${dir} is not a Ferry backup: ${MANIFEST_FILE} cannot be read.`, {
      cause: error,
    });
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      `${path.join(dir, MANIFEST_FILE)} is not a backup manifest: ${parsed.error.message}`,
    );
  }
  for (const expected of [parsed.data.postgres.file, parsed.data.redis.file]) {
    const found = await describeFile(dir, expected.name).catch(() => undefined);
    if (!found || found.sha256 !== expected.sha256 || found.bytes !== expected.bytes) {
      throw new Error(
        `${path.join(dir, expected.name)} is missing or not the file the manifest describes (size or SHA-256 differ): the backup is damaged.`,
      );
    }
  }
  return parsed.data;
}
