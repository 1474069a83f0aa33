/** What redis-cli needs from REDIS_URL: host, port, user, TLS; the password goes in its env. */
export interface RedisCliTarget {
  args: string[];
  env: Record<string, string>;
  /** The URL's `/N`: the database whose keys are Ferry's. */
  db: number;
}

export function redisCliTarget(redisUrl: string): RedisCliTarget {
  const url = new URL(redisUrl);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new Error(`REDIS_URL: backups read redis:// and rediss:// URLs, not ${url.protocol}//.`);
  }
  const args = ['-h', url.hostname.replace(/^\[|\]$/g, ''), '-p', url.port || '6379'];
  if (url.username) args.push('--user', decodeURIComponent(url.username));
  if (url.protocol === 'rediss:') args.push('--tls');
  const password = decodeURIComponent(url.password);
  const db = Number(url.pathname.replace(/^\//, '') || '0');
  if (!Number.isInteger(db) || db < 0)
    throw new Error(`REDIS_URL: ${url.pathname} is not a database index.`);
  // REDISCLI_AUTH: redis-cli's way to take a password without it showing in `ps`.
  return { args, env: password ? { REDISCLI_AUTH: password } : {}, db };
}
