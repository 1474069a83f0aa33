import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@ferry/core';
import { loadGithubSettings } from '../src/config.js';

const pem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();
const full = {
  GITHUB_APP_ID: '123',
  GITHUB_APP_PRIVATE_KEY: pem,
  GITHUB_APP_SLUG: 'ferry',
  GITHUB_CLIENT_ID: 'Iv1.abc',
  GITHUB_CLIENT_SECRET: 'shh',
};

describe('GitHub settings', () => {
  it('is off, naming every missing variable, when the App is not configured', () => {
    const settings = loadGithubSettings({ GITHUB_APP_ID: '123' });
    expect(settings).toEqual({
      configured: false,
      missing: [
        'GITHUB_APP_PRIVATE_KEY',
        'GITHUB_APP_SLUG',
        'GITHUB_CLIENT_ID',
        'GITHUB_CLIENT_SECRET',
      ],
      apiUrl: 'https://api.github.com',
      webUrl: 'https://github.com',
    });
  });

  it('accepts the private key on one line with literal \\n, and GHES base URLs', () => {
    const settings = loadGithubSettings({
      ...full,
      GITHUB_APP_PRIVATE_KEY: pem.replace(/\n/g, '\\n'),
      GITHUB_API_URL: 'https://ghe.example/api/v3/',
      GITHUB_WEB_URL: 'https://ghe.example',
    });
    if (!settings.configured) throw new Error('expected configured');
    expect(settings.app.privateKey).toBe(pem.trim());
    expect(settings.app.apiUrl).toBe('https://ghe.example/api/v3');
  });

  it('refuses a private key that is not one, and a base URL that is not http(s)', () => {
    expect(() => loadGithubSettings({ ...full, GITHUB_APP_PRIVATE_KEY: 'not a key' })).toThrow(
      ConfigError,
    );
    expect(() => loadGithubSettings({ ...full, GITHUB_API_URL: 'ftp://x' })).toThrow(
      /GITHUB_API_URL/,
    );
  });
});
