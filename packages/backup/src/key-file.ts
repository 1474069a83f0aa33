import { z } from 'zod';

/**
 * The Redis half of a backup: one JSON line per key, with the key's name and DUMP payload in
 * base64 (both are bytes, not text) and its remaining time to live in ms (0: none). Lines, so
 * restoring streams the file instead of holding it in memory.
 */
export interface DumpedKey {
  key: Buffer;
  ttlMs: number;
  value: Buffer;
}

const lineSchema = z.object({
  key: z.base64(),
  ttl_ms: z.number().int().min(0),
  value: z.base64(),
});

export function serializeKey({ key, ttlMs, value }: DumpedKey): string {
  return `${JSON.stringify({ key: key.toString('base64'), ttl_ms: ttlMs, value: value.toString('base64') })}\n`;
}

/** One line back into a key; throws naming the line when it is not one of ours. */
export function parseKeyLine(line: string, lineNumber: number): DumpedKey {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw new Error(`Line ${lineNumber} of the Redis keys file is not JSON.`);
  }
  const parsed = lineSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      `Line ${lineNumber} of the Redis keys file is not a key: ${parsed.error.message}`,
    );
  }
  return {
    key: Buffer.from(parsed.data.key, 'base64'),
    ttlMs: parsed.data.ttl_ms,
    value: Buffer.from(parsed.data.value, 'base64'),
  };
}
