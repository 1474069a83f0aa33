import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { describeRedisTarget, parseRedisUrl } from '../src/redis-url.js';

function problemOf(url: string): string {
  const result = parseRedisUrl(url);
  if ('problem' in result) return result.problem;
  throw new Error(`expected ${url} to be refused`);
}

/** Issue 47 part 4: REDIS_URL names one server or Sentinels and a master name. */
describe('REDIS_URL', () => {
  it('keeps a single server as its URL, for ioredis to read', () => {
    expect(loadConfig({ REDIS_URL: 'rediss://:pw@cache.internal:6380/1' }).redis).toEqual({
      mode: 'direct',
      url: 'rediss://:pw@cache.internal:6380/1',
    });
    expect(loadConfig({}).redis).toEqual({ mode: 'direct', url: 'redis://127.0.0.1:6379/0' });
  });

  it('reads Sentinels, the master name, the database and both passwords', () => {
    const config = loadConfig({
      REDIS_URL:
        'redis+sentinel://:p%40ss@10.0.0.1:26379,sentinel-b,[::1]:26380/my-master/2?sentinelPassword=s3cret',
    });
    expect(config.redis).toEqual({
      mode: 'sentinel',
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: 'sentinel-b', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'my-master',
      db: 2,
      password: 'p@ss',
      sentinelPassword: 's3cret',
    });
    expect(config.REDIS_URL).toMatch(/^redis\+sentinel:/);
    expect(describeRedisTarget(config.redis)).toBe(
      'redis+sentinel://:***@10.0.0.1:26379,sentinel-b:26379,::1:26380/my-master/2',
    );
  });

  it('defaults the database to 0 and takes a username', () => {
    expect(parseRedisUrl('redis+sentinel://ferry:pw@a:1,b:2/main')).toEqual({
      target: {
        mode: 'sentinel',
        sentinels: [
          { host: 'a', port: 1 },
          { host: 'b', port: 2 },
        ],
        name: 'main',
        db: 0,
        username: 'ferry',
        password: 'pw',
      },
    });
  });

  it('refuses a Sentinel URL it cannot use, saying what is wrong', () => {
    expect(problemOf('redis+sentinel://a:26379')).toMatch(/<masterName>/);
    expect(problemOf('redis+sentinel://a:26379,b:x/main')).toBe(
      'Sentinel address "b:x" is not host or host:port',
    );
    expect(problemOf('redis+sentinel://a:70000/main')).toMatch(/"a:70000"/);
    expect(problemOf('redis+sentinel://a/main/two')).toMatch(/must be a number, not "two"/);
    expect(problemOf('redis+sentinel://pw@a/main')).toMatch(/after a colon/);
    expect(problemOf('redis+sentinel://a/main?tls=1')).toMatch(
      /unknown Sentinel URL parameter "tls"/,
    );
    expect(() => loadConfig({ REDIS_URL: 'redis+sentinel://a,/main' })).toThrow(ConfigError);
  });

  it('never shows a password when describing a single server', () => {
    expect(describeRedisTarget({ mode: 'direct', url: 'redis://:hunter2@h:6379/0' })).toBe(
      'redis://:***@h:6379/0',
    );
  });
});
