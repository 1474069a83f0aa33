import { describe, expect, it } from '@jest/globals';
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
