import { describe, expect, it } from 'vitest';
import { decideRoute, matchesGlob, toAgentName } from '../src/index.js';

describe('ship policy', () => {
  const policy = {
    maxFiles: 3,
    maxLines: 60,
    alwaysReviewed: ['db/**', 'config/*.yml', '**/*.lock'],
  };

  it('is a quick fix within the limits, a PR past either, naming the rule', () => {
    expect(decideRoute(policy, { files: ['a.ts', 'b.ts'], lines: 14 })).toEqual({
      route: 'quick_fix',
      reason: '2 files, 14 lines: within 3 files and 60 lines',
    });
    expect(decideRoute(policy, { files: ['a', 'b', 'c'], lines: 60 }).route).toBe('quick_fix');
    expect(decideRoute(policy, { files: ['a', 'b', 'c', 'd'], lines: 1 })).toEqual({
      route: 'pr',
      reason: '4 files > 3',
    });
    expect(decideRoute(policy, { files: ['a'], lines: 72 })).toEqual({
      route: 'pr',
      reason: '72 lines > 60',
    });
    expect(decideRoute(policy, { files: ['app/x.rb', 'db/schema.rb'], lines: 2 })).toEqual({
      route: 'pr',
      reason: 'db/schema.rb is always reviewed',
    });
  });

  it('matches the path a proposal names, however it is spelled', () => {
    const spellings = [
      'db//schema.rb',
      'db/./schema.rb',
      'x/../db/schema.rb',
      '/db/schema.rb',
      'db/schema.rb ',
      ' ./db/schema.rb',
      'db\\schema.rb',
      'db/schema.rb/',
    ];
    for (const file of spellings) {
      expect([file, decideRoute(policy, { files: ['app/x.rb', file], lines: 2 })]).toEqual([
        file,
        { route: 'pr', reason: 'db/schema.rb is always reviewed' },
      ]);
    }
  });

  it('never makes a quick fix of a path outside the repository', () => {
    const open = { ...policy, alwaysReviewed: [] };
    for (const [file, normalized] of [
      ['../secrets.env', '../secrets.env'],
      ['app/../../etc/passwd', '../etc/passwd'],
      ['/../x', '../x'],
      ['..\\x', '../x'],
      ['..', '..'],
    ]) {
      expect([file, decideRoute(open, { files: [file!], lines: 1 })]).toEqual([
        file,
        {
          route: 'pr',
          reason: `${normalized} is outside the repository, so it is always reviewed`,
        },
      ]);
    }
  });

  it('matches case-sensitively, as git does', () => {
    expect(decideRoute(policy, { files: ['DB/schema.rb'], lines: 1 }).route).toBe('quick_fix');
    expect(matchesGlob('Db/schema.rb', 'db/**')).toBe(false);
  });

  it('reads a pattern spelled with a leading slash or ./ from the repository root', () => {
    expect(matchesGlob('db/schema.rb', '/db/**')).toBe(true);
    expect(matchesGlob('db/schema.rb', './db/**')).toBe(true);
  });

  it('matches globs by path segment', () => {
    expect(matchesGlob('db/schema.rb', 'db/**')).toBe(true);
    expect(matchesGlob('db/migrate/1_x.rb', 'db/**')).toBe(true);
    expect(matchesGlob('app/db/x.rb', 'db/**')).toBe(false);
    expect(matchesGlob('config/app.yml', 'config/*.yml')).toBe(true);
    expect(matchesGlob('config/env/app.yml', 'config/*.yml')).toBe(false);
    expect(matchesGlob('Gemfile.lock', '**/*.lock')).toBe(true);
    expect(matchesGlob('js/yarn.lock', '**/*.lock')).toBe(true);
    expect(matchesGlob('./db/seeds.rb', 'db/**')).toBe(true);
    expect(matchesGlob('a+b.txt', 'a+b.txt')).toBe(true);
  });

  it('makes @-mentionable agent names', () => {
    expect(toAgentName('My Shop!')).toBe('my-shop');
    expect(toAgentName('@api_server')).toBe('api_server');
    expect(toAgentName('---')).toBe('');
  });
});
