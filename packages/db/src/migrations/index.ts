import type { Migration } from 'kysely/migration';
import * as foundation from './2026_11_21_0001_foundation.js';

/**
 * Every migration, by timestamped name. Listed statically (not read from disk) so the same list
 * works under tsx, jest and a bundled image. Add new files at the end.
 */
export const migrations: Record<string, Migration> = {
  '2026_11_21_0001_foundation': foundation,
};
