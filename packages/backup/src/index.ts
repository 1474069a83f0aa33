export { takeBackup } from './backup.js';
export type { BackupConfig, BackupOptions, TakenBackup } from './backup.js';
export { RELAY_AGAIN_MARGIN_MS, RestoreRefused, restoreBackup } from './restore.js';
export type { RestoreOptions, RestoreSummary } from './restore.js';
export {
  MANIFEST_FILE,
  POSTGRES_FILE,
  REDIS_FILE,
  manifestSchema,
  readManifest,
} from './manifest.js';
export type { Manifest } from './manifest.js';
