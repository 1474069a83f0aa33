import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { promisify } from 'node:util';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/**
 * Outgoing-request targets chosen by users (webhook URLs) must not reach our own network: private,
 * loopback, link-local, CGNAT, multicast, unspecified and cloud-metadata addresses are refused.
 * The check runs twice: when the URL is saved (a friendly form error) and at connect time on the
 * address actually dialled (`guardedLookup`), so a hostname that resolves somewhere harmless when
 * saved and to 127.0.0.1 later (DNS rebinding) still cannot pass.
 */

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const ssrfEnvSchema = z.object({
  /** Dev and tests only: lets webhooks target loopback and private networks. */
  ALLOW_PRIVATE_WEBHOOK_TARGETS: booleanFromEnv.default(false),
});

export interface SsrfSettings {
  allowPrivateTargets: boolean;
}

/** Parsed once by each process at start; an unparseable value fails the process. */
export function loadSsrfSettings(env: NodeJS.ProcessEnv = process.env): SsrfSettings {
  const value = env.ALLOW_PRIVATE_WEBHOOK_TARGETS;
  const parsed = ssrfEnvSchema.parse({
    ALLOW_PRIVATE_WEBHOOK_TARGETS: value === '' ? undefined : value,
  });
  return { allowPrivateTargets: parsed.ALLOW_PRIVATE_WEBHOOK_TARGETS };
}

/** ipaddr.js range names that are the public internet; every other range is refused. */
const PUBLIC_RANGES = new Set(['unicast']);

/** Named separately because some of them sit inside ranges ipaddr.js calls unicast. */
const METADATA_ADDRESSES = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'];

/** Why an address is refused, or null when it is a public unicast address. */
export function refusedAddressReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let parsed = ipaddr.parse(address);
  // ::ffff:127.0.0.1 is 127.0.0.1 to the kernel.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const normal = parsed.toNormalizedString();
  if (METADATA_ADDRESSES.some((m) => ipaddr.parse(m).toNormalizedString() === normal)) {
    return 'a cloud metadata address';
  }
  const range = parsed.range();
  if (PUBLIC_RANGES.has(range)) return null;
  // 'carrierGradeNat' (100.64/10), 'private', 'loopback', 'linkLocal', 'multicast',
  // 'unspecified', 'uniqueLocal', 'reserved', 'broadcast', '6to4'/'teredo' tunnels...
  return `a ${range} address`;
}

export class RefusedTargetError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    reason: string,
  ) {
    super(`Refused: ${host} resolves to ${address}, ${reason}.`);
    this.name = 'RefusedTargetError';
  }
}

const lookupAll = promisify(dnsLookup) as (
  hostname: string,
  options: { all: true },
) => Promise<LookupAddress[]>;

export type TargetCheck = { ok: true } | { ok: false; message: string };

/** Host of a URL without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * The save-time check: every address the hostname resolves to must be public (one private answer
 * is enough to refuse: the client may pick any of them). Messages are shown to the user.
 */
export async function checkTargetUrl(
  raw: string,
  settings: SsrfSettings,
  resolve: (host: string) => Promise<LookupAddress[]> = (host) => lookupAll(host, { all: true }),
): Promise<TargetCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: 'Enter a full URL starting with https:// or http://.' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, message: 'Only http:// and https:// URLs can receive webhooks.' };
  }
  if (url.username || url.password) {
    return { ok: false, message: 'Put credentials in the receiver, not in the URL.' };
  }
  if (settings.allowPrivateTargets) return { ok: true };
  const host = bareHost(url);
  let addresses: LookupAddress[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      return { ok: false, message: `The host ${host} does not resolve.` };
    }
  }
  for (const { address } of addresses) {
    const reason = refusedAddressReason(address);
    if (reason) {
      return {
        ok: false,
        message: `The host ${host} resolves to ${address}, ${reason}; webhooks can only reach public addresses.`,
      };
    }
  }
  return { ok: true };
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:http(s) and net.connect: resolves like dns.lookup, then refuses the connection
 * when any answer is not public. The socket only ever dials what this returns, which is what closes
 * the DNS-rebinding gap of a save-time-only check. With `allowPrivateTargets` it is plain lookup.
 */
export function guardedLookup(settings: SsrfSettings) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ): void => {
    dnsLookup(hostname, { ...options, all: true } as { all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      if (!settings.allowPrivateTargets) {
        for (const { address } of addresses) {
          const reason = refusedAddressReason(address);
          if (reason) return callback(new RefusedTargetError(hostname, address, reason), []);
        }
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname}: no address`), {}), []);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * Connect-time check for a URL whose host is an IP literal: node never calls `lookup` for those,
 * so the caller checks them here before dialling. Returns the refusal, or null.
 */
export function refusedLiteralHost(url: URL, settings: SsrfSettings): RefusedTargetError | null {
  if (settings.allowPrivateTargets) return null;
  const host = bareHost(url);
  if (!ipaddr.isValid(host)) return null;
  const reason = refusedAddressReason(host);
  return reason ? new RefusedTargetError(host, host, reason) : null;
}
