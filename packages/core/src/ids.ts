import { randomBytes } from 'node:crypto';

/** Crockford base32, lower case: sorts the same as the numbers it encodes. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export const ID_PREFIXES = {
  user: 'usr',
  workspace: 'wsp',
  member: 'mem',
  room: 'room',
  message: 'msg',
  messageFile: 'mfl',
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
  artifactBundle: 'bnd',
  releaseDeploy: 'dpl',
  errorAlertRule: 'alr',
  errorBulkAction: 'ebk',
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

/** The last id's clock and random part: ids made in one millisecond continue from it. */
let lastMs = 0;
const lastRandom = new Uint8Array(RANDOM_BYTES);

/**
 * Adds a random step of 1 to 2^32 to the 80-bit `value` in place; false when it overflowed (the
 * value is then spent). The random step keeps the next id unguessable from the last one.
 */
function stepForward(value: Uint8Array): boolean {
  const step = randomForId();
  let carry = step[0]! * 2 ** 24 + step[1]! * 2 ** 16 + step[2]! * 2 ** 8 + step[3]! + 1;
  for (let i = value.length - 1; i >= 0 && carry > 0; i--) {
    const sum = value[i]! + carry;
    value[i] = sum % 256;
    carry = Math.floor(sum / 256);
  }
  return carry === 0;
}

/**
 * `<prefix>_<10 chars of ms timestamp><16 chars of randomness>` (ULID layout). Ids sort by creation
 * time, which keeps btree inserts append-mostly, and within one process they strictly increase:
 * an id made in the same millisecond as the last (or while the clock stepped back) continues from
 * it by a random step instead of drawing afresh, so messages a process stores one after another
 * sort in that order even within a millisecond.
 */
export function newId(kind: IdKind): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    lastRandom.set(randomForId());
  } else if (!stepForward(lastRandom)) {
    // Only when the millisecond's first value was drawn within a few billion of 2^80: practically
    // never, and then the next millisecond starts afresh.
    lastMs += 1;
    lastRandom.set(randomForId());
  }
  return `${ID_PREFIXES[kind]}_${encodeTime(lastMs, 10)}${encodeBytes(lastRandom)}`;
}

/**
 * The smallest id of `kind` made at or after `at`: `where id >= firstIdAt(...)` bounds a range scan
 * on an id index to recent rows, because ids sort by creation time.
 */
export function firstIdAt(kind: IdKind, at: Date): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(at.getTime(), 10)}${'0'.repeat(16)}`;
}

/**
 * When an id was made (its time part), or undefined for a string that is not an id: the inverse
 * of firstIdAt, to the millisecond.
 */
export function idTime(id: string): Date | undefined {
  if (!isId(id)) return undefined;
  const time = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11);
  let ms = 0;
  for (const char of time) ms = ms * 32 + ALPHABET.indexOf(char);
  return new Date(ms);
}

const ID_SHAPE = /^[a-z]{2,5}_[0-9a-hjkmnp-tv-z]{26}$/;

/** True when `value` looks like an id of that kind: used to answer 404 early for junk ids. */
export function isId(value: unknown, kind?: IdKind): value is string {
  if (typeof value !== 'string' || !ID_SHAPE.test(value)) return false;
  return kind ? value.startsWith(`${ID_PREFIXES[kind]}_`) : true;
}
