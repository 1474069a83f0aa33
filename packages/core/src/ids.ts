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
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

function encode(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(value & 31n)]! + out;
    value >>= 5n;
  }
  return out;
}

/**
 * `<prefix>_<10 chars of ms timestamp><16 chars of randomness>` (ULID layout). Ids of one kind sort
 * by creation time, which keeps btree inserts append-mostly.
 */
export function newId(kind: IdKind): string {
  const prefix = ID_PREFIXES[kind];
  const time = encode(BigInt(Date.now()), 10);
  const random = encode(BigInt(`0x${randomBytes(10).toString('hex')}`), 16);
  return `${prefix}_${time}${random}`;
}

const ID_SHAPE = /^[a-z]{2,5}_[0-9a-hjkmnp-tv-z]{26}$/;

/** True when `value` looks like an id of that kind: used to answer 404 early for junk ids. */
export function isId(value: unknown, kind?: IdKind): value is string {
  if (typeof value !== 'string' || !ID_SHAPE.test(value)) return false;
  return kind ? value.startsWith(`${ID_PREFIXES[kind]}_`) : true;
}
