import { describe, expect, it } from 'vitest';
import {
  SecretBox,
  generateSecret,
  hashPassword,
  hashSecret,
  isId,
  loadConfig,
  ConfigError,
  newId,
  safeEqual,
  verifyPassword,
  visiblePrefix,
} from '../src/index.js';

describe('ids', () => {
  it('are prefixed and sort by creation time', async () => {
    const first = newId('message');
    await new Promise((r) => setTimeout(r, 3));
    const second = newId('message');
    expect(first).toMatch(/^msg_[0-9a-z]{26}$/);
    expect(first < second).toBe(true);
    expect(isId(first, 'message')).toBe(true);
    expect(isId(first, 'room')).toBe(false);
    expect(isId('msg_../../etc')).toBe(false);
  });
});

describe('secrets', () => {
  it('hashes checked secrets and shows only a prefix', () => {
    const raw = generateSecret('fry');
    expect(raw).toMatch(/^fry_[A-Za-z0-9_-]{43}$/);
    expect(hashSecret(raw)).toHaveLength(64);
    expect(hashSecret(raw)).not.toContain(raw);
    expect(visiblePrefix(raw)).toBe(raw.slice(0, 12));
  });

  it('compares in constant time and still tells different values apart', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });

  it('seals and opens secrets with AES-256-GCM; tampering is detected', () => {
    const box = new SecretBox('x'.repeat(32));
    const sealed = box.encrypt('whsec_topsecret');
    expect(sealed).not.toContain('topsecret');
    expect(box.decrypt(sealed)).toBe('whsec_topsecret');
    expect(() => new SecretBox('y'.repeat(32)).decrypt(sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.decrypt(parts.join('.'))).toThrow();
  });

  it('hashes passwords with scrypt and verifies them', async () => {
    const stored = await hashPassword('hunter22!');
    expect(stored.startsWith('scrypt$')).toBe(true);
    await expect(verifyPassword('hunter22!', stored)).resolves.toBe(true);
    await expect(verifyPassword('hunter23!', stored)).resolves.toBe(false);
    await expect(verifyPassword('x', 'garbage')).resolves.toBe(false);
  });
});

describe('config', () => {
  it('fills development defaults and flags the dev secret', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(3000);
    expect(config.usingDevSecret).toBe(true);
    expect(config.PUBLIC_URL).toBe('http://localhost:3000');
  });

  it('lists every problem at once', () => {
    try {
      loadConfig({ PORT: 'abc', DATABASE_URL: 'not a url', NODE_ENV: 'prod' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toMatch(/PORT/);
      expect(problems).toMatch(/DATABASE_URL/);
      expect(problems).toMatch(/NODE_ENV/);
    }
  });

  it('requires APP_SECRET in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/APP_SECRET/);
  });
});
