import { randomBytes } from 'node:crypto';

/** Crockford base32, lower case: sorts the same as the numbers it encodes. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export const ID_PREFIXES = {
  user: 'usr',
  workspace: 'wsp',
  member: 'mem',
  room: 'room',
  message: 'msg',
  feedback: 'fbk',
  apiToken: 'tok',
  visitor: 'vis',
  outbox: 'evt',
  session: 'ses',
  errorGroup: 'egr',
  errorOccurrence: 'err',
  incomingWebhook: 'whk',
  outgoingWebhook: 'owh',
  webhookDelivery: 'dlv',
  webhookAttempt: 'att',
  agent: 'agt',
  agentWork: 'wrk',
  agentProposal: 'prp',
  githubInstallation: 'ghi',
  githubRepo: 'rep',
  githubAuthorization: 'gha',
  dispatch: 'dsp',
  invite: 'inv',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** Base32 of a whole number of milliseconds, `length` characters, most significant first. */
function encodeTime(ms: number, length: number): string {
  let out = '';
  let value = ms;
  for (let i = 0; i < length; i++) {
    out = ALPHABET[value % 32]! + out;
    value = Math.floor(value / 32);
  }
  return out;
}

/** Base32 of bytes read as one big-endian number (10 bytes: 80 bits, 16 characters). */
function encodeBytes(bytes: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = ((acc << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(acc >> bits) & 31]!;
    }
  }
  return out;
}

/**
 * Randomness for ids, drawn from the CSPRNG a few KB at a time: one randomBytes call per id cost
 * more than the rest of newId on the hot paths (ten ids per ingest request).
 */
const RANDOM_BYTES = 10;
const POOL_IDS = 256;
let pool = new Uint8Array(0);
let poolOffset = 0;

function randomForId(): Uint8Array {
  if (poolOffset + RANDOM_BYTES > pool.length) {
    pool = randomBytes(RANDOM_BYTES * POOL_IDS);
    poolOffset = 0;
  }
  const out = pool.subarray(poolOffset, poolOffset + RANDOM_BYTES);
  poolOffset += RANDOM_BYTES;
  return out;
}

/**
 * `<prefix>_<10 chars of ms timestamp><16 chars of randomness>` (ULID layout). Ids of one kind sort
 * by creation time, which keeps btree inserts append-mostly.
 */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(Date.now(), 10)}${encodeBytes(randomForId())}`;
}

/**
 * The smallest id of `kind` made at or after `at`: `where id >= firstIdAt(...)` bounds a range scan
 * on an id index to recent rows, because ids sort by creation time.
 */
export function firstIdAt(kind: IdKind, at: Date): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(at.getTime(), 10)}${'0'.repeat(16)}`;
}

const ID_SHAPE = /^[a-z]{2,5}_[0-9a-hjkmnp-tv-z]{26}$/;

/** True when `value` looks like an id of that kind: used to answer 404 early for junk ids. */
export function isId(value: unknown, kind?: IdKind): value is string {
  if (typeof value !== 'string' || !ID_SHAPE.test(value)) return false;
  return kind ? value.startsWith(`${ID_PREFIXES[kind]}_`) : true;
}
