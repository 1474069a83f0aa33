/**
 * Where Redis is, read from REDIS_URL once at start (config.ts). Two forms:
 *
 * - `redis://[[user]:password@]host[:port][/db]` or `rediss://…` (TLS): one server, handed to
 *   ioredis as the URL itself.
 * - `redis+sentinel://[[user]:password@]host1[:port1],host2[:port2],…/<masterName>[/<db>]
 *   [?sentinelPassword=…]`: Sentinels (port 26379 when left out) that name the master of
 *   `<masterName>`; ioredis asks them for it, and again after a failover. The password is the
 *   master's (and its replicas'); Sentinels that require a password of their own take it as
 *   `sentinelPassword`. IPv6 hosts are written in brackets (`[::1]:26379`).
 *
 * Neither form is parsed by `new URL`: a WHATWG URL has one host, not a list.
 */
export interface SentinelAddress {
  host: string;
  port: number;
}

export type RedisTarget =
  | { mode: 'direct'; url: string }
  | {
      mode: 'sentinel';
      sentinels: SentinelAddress[];
      /** The master name the Sentinels monitor (`sentinel monitor <name> …`). */
      name: string;
      db: number;
      username?: string;
      password?: string;
      sentinelPassword?: string;
    };

export type RedisUrlResult = { target: RedisTarget } | { problem: string };

export const REDIS_URL_FORMS =
  'redis://host:6379/0, rediss://host:6380/0 or redis+sentinel://host1:26379,host2:26379/mymaster/0';

const DEFAULT_SENTINEL_PORT = 26379;
const SENTINEL_URL =
  /^redis\+sentinel:\/\/(?:([^@/]*)@)?([^/?#@]+)\/([^/?#]+)(?:\/([^/?#]*))?\/?(?:\?([^#]*))?$/;
const BRACKETED_HOST = /^\[([0-9a-fA-F:.]+)\](?::(\d+))?$/;
const PLAIN_HOST = /^([^:[\]\s]+)(?::(\d+))?$/;

/** REDIS_URL as a target, or what is wrong with it (one sentence for the config's problem list). */
export function parseRedisUrl(value: string): RedisUrlResult {
  if (value.startsWith('redis+sentinel:')) return parseSentinelUrl(value);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: `must be a URL such as ${REDIS_URL_FORMS}` };
  }
  if (!['redis:', 'rediss:'].includes(url.protocol) || url.hostname === '') {
    return {
      problem: `must be a URL of scheme redis://, rediss:// or redis+sentinel:// with a host, such as ${REDIS_URL_FORMS}`,
    };
  }
  return { target: { mode: 'direct', url: value } };
}

function parseSentinelUrl(value: string): RedisUrlResult {
  const match = SENTINEL_URL.exec(value);
  if (!match) {
    return {
      problem:
        'a Sentinel URL is redis+sentinel://[[user]:password@]host1:port1,host2:port2,…/<masterName>[/<db>], such as redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/mymaster/0',
    };
  }
  const [, userinfo, hostList, rawName, rawDb, query] = match;
  const sentinels: SentinelAddress[] = [];
  for (const part of hostList!.split(',')) {
    const address = parseHost(part.trim());
    if (!address) return { problem: `Sentinel address "${part}" is not host or host:port` };
    sentinels.push(address);
  }
  const db = rawDb === undefined || rawDb === '' ? 0 : Number(rawDb);
  if (!Number.isInteger(db) || db < 0 || !/^\d*$/.test(rawDb ?? '')) {
    return { problem: `the database after the master name must be a number, not "${rawDb}"` };
  }
  const credentials = parseUserinfo(userinfo);
  if ('problem' in credentials) return credentials;
  const params = new URLSearchParams(query ?? '');
  for (const key of params.keys()) {
    if (key !== 'sentinelPassword') {
      return { problem: `unknown Sentinel URL parameter "${key}" (only sentinelPassword)` };
    }
  }
  const sentinelPassword = params.get('sentinelPassword') ?? undefined;
  return {
    target: {
      mode: 'sentinel',
      sentinels,
      name: decodeURIComponent(rawName!),
      db,
      ...credentials,
      ...(sentinelPassword ? { sentinelPassword } : {}),
    },
  };
}

function parseHost(part: string): SentinelAddress | undefined {
  const match = BRACKETED_HOST.exec(part) ?? PLAIN_HOST.exec(part);
  if (!match) return undefined;
  const port = match[2] === undefined ? DEFAULT_SENTINEL_PORT : Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1]!, port };
}

function parseUserinfo(
  userinfo: string | undefined,
): { username?: string; password?: string } | { problem: string } {
  if (userinfo === undefined) return {};
  const colon = userinfo.indexOf(':');
  if (colon < 0) {
    return { problem: 'write the Redis password after a colon: redis+sentinel://:password@…' };
  }
  const username = decodeURIComponent(userinfo.slice(0, colon));
  const password = decodeURIComponent(userinfo.slice(colon + 1));
  return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

/** The target for logs and the start banner: where, never a password. */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.mode === 'sentinel') {
    const hosts = target.sentinels.map((s) => `${s.host}:${s.port}`).join(',');
    return `redis+sentinel://${target.password ? ':***@' : ''}${hosts}/${target.name}/${target.db}`;
  }
  try {
    const parsed = new URL(target.url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}
