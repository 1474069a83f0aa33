import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { promisify } from 'node:util';
import ipaddr from 'ipaddr.js';
import { booleanFromEnv, defineConfig } from './config.js';

/**
 * Outgoing-request targets chosen by users (webhook URLs) must not reach our own network: private,
 * loopback, link-local, CGNAT, multicast, unspecified and cloud-metadata addresses are refused.
 * The check runs twice: when the URL is saved (a friendly form error) and at connect time on the
 * address actually dialled (`guardedLookup`), so a hostname that resolves somewhere harmless when
 * saved and to 127.0.0.1 later (DNS rebinding) still cannot pass.
 */

const loadSsrfEnv = defineConfig({
  /** Dev and tests only: lets webhooks target loopback and private networks. */
  ALLOW_PRIVATE_WEBHOOK_TARGETS: booleanFromEnv.default(false),
});

export interface SsrfSettings {
  allowPrivateTargets: boolean;
}

/** Parsed once by each process at start and passed in deps; a bad value fails the process. */
export function loadSsrfSettings(env: NodeJS.ProcessEnv = process.env): SsrfSettings {
  return { allowPrivateTargets: loadSsrfEnv(env).ALLOW_PRIVATE_WEBHOOK_TARGETS };
}

/** ipaddr.js range names that are the public internet; every other range is refused. */
const PUBLIC_RANGES = new Set(['unicast']);

/** Named separately because some of them sit inside ranges ipaddr.js calls unicast. */
const METADATA_ADDRESSES = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'];

/** Why an IPv4 address is refused, or null when it is public. */
function refusedIPv4Reason(v4: ipaddr.IPv4): string | null {
  const normal = v4.toNormalizedString();
  if (METADATA_ADDRESSES.includes(normal)) return 'a cloud metadata address';
  const range = v4.range();
  // 'carrierGradeNat' (100.64/10), 'private', 'loopback', 'linkLocal', 'multicast',
  // 'unspecified', 'reserved', 'broadcast'...
  return PUBLIC_RANGES.has(range) ? null : `a ${range} address`;
}

/**
 * The IPv4 addresses an IPv6 address carries, for the forms a kernel, a NAT64 gateway or a tunnel
 * turns into IPv4 traffic: mapped (::ffff:a.b.c.d), compatible (::a.b.c.d, deprecated but still
 * routed by some stacks), SIIT-translated (::ffff:0:a.b.c.d), NAT64 well-known prefix
 * (64:ff9b::/96), 6to4 (2002:AABB:CCDD::/16 -> A.B.C.D) and Teredo (2001:0::/32: the server, and
 * the client stored inverted in the last 32 bits). Empty for any other address.
 */
export function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4[] {
  const b = v6.toByteArray();
  const zero = (from: number, to: number): boolean => b.slice(from, to).every((x) => x === 0);
  const at = (offset: number): ipaddr.IPv4 => new ipaddr.IPv4(b.slice(offset, offset + 4));
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return [at(12)];
  // ::/96 but not :: and ::1, which are IPv6's own unspecified and loopback addresses.
  if (zero(0, 12)) return zero(12, 15) && (b[15] ?? 0) <= 1 ? [] : [at(12)];
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return [at(12)];
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) {
    return [at(12)];
  }
  if (b[0] === 0x20 && b[1] === 0x02) return [at(2)];
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x00 && b[3] === 0x00) {
    return [at(4), new ipaddr.IPv4(b.slice(12, 16).map((x) => x ^ 0xff))];
  }
  return [];
}

/** Why an address is refused, or null when it is a public unicast address. */
export function refusedAddressReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return refusedIPv4Reason(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  // An IPv6 form that carries an IPv4 address reaches that address: it is judged by its class
  // (::ffff:127.0.0.1 is 127.0.0.1 to the kernel; 64:ff9b::10.0.0.1 is 10.0.0.1 behind NAT64).
  const embedded = embeddedIPv4(v6);
  if (embedded.length) {
    for (const v4 of embedded) {
      const reason = refusedIPv4Reason(v4);
      if (reason) return `${reason} (${v4.toString()} inside an IPv6 address)`;
    }
    return null;
  }
  const normal = v6.toNormalizedString();
  if (METADATA_ADDRESSES.some((m) => ipaddr.parse(m).toNormalizedString() === normal)) {
    return 'a cloud metadata address';
  }
  // 64:ff9b:1::/48 is NAT64 for local networks (RFC 8215): never a public target.
  if (normal.startsWith('64:ff9b:1:')) return 'a local-use NAT64 address';
  const range = v6.range();
  // 'uniqueLocal', 'linkLocal', 'loopback', 'multicast', 'unspecified', 'reserved'...
  return PUBLIC_RANGES.has(range) ? null : `a ${range} address`;
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

/**
 * `url` is the target in its WHATWG normal form (`new URL(raw).href`): what was checked and what
 * Node will dial, so it is what gets stored. Another reader of a stored `http://1.1.1.1\@127.0.0.1/`
 * might see the host as 127.0.0.1; its normal form, `http://1.1.1.1/@127.0.0.1/`, says 1.1.1.1.
 */
export type TargetCheck = { ok: true; url: string } | { ok: false; message: string };

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
  if (settings.allowPrivateTargets) return { ok: true, url: url.href };
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
      const what = ipaddr.isValid(host)
        ? `The address ${host} is ${reason}`
        : `The host ${host} resolves to ${address}, ${reason}`;
      return {
        ok: false,
        message: `${what}; webhooks can only reach public addresses (for local development, set ALLOW_PRIVATE_WEBHOOK_TARGETS=true).`,
      };
    }
  }
  return { ok: true, url: url.href };
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
