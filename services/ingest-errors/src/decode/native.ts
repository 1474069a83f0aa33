import { parseBatch, type StoredReport } from '../report.js';

/**
 * SPEC.md's own format (POST /ingest/errors): one report object or `{errors: [...], source?}`,
 * already parsed from JSON. Invalid reports are dropped and extras past ten ignored (parseBatch).
 */
export function decodeNative(body: unknown, receivedAt: Date): StoredReport[] {
  return parseBatch(body, receivedAt).reports;
}
