import { describe, expect, it } from 'vitest';
import {
  parseSearch,
  SearchSyntaxError,
  searchValue,
  withKeyReplaced,
} from '../src/errors/search-query.js';
import { globPattern } from '../src/errors/search-sql.js';

const NOW = new Date('2026-11-28T12:00:00Z');
const parse = (q: string) => parseSearch(q, NOW);

/** The error a query throws: its token and why, or a test failure saying it parsed. */
function refusal(q: string): { token: string; why: string } {
  try {
    parse(q);
  } catch (error) {
    if (error instanceof SearchSyntaxError) return { token: error.token, why: error.why };
    throw error;
  }
  throw new Error(`expected “${q}” to be refused, but it parsed`);
}

describe('parseSearch: every key', () => {
  it('reads is:, source:, env: and assigned:', () => {
    expect(parse('is:resolved source:js env:production assigned:me assigned:none')).toMatchObject([
      { kind: 'status', status: 'resolved', negated: false },
      { kind: 'source', source: 'js' },
      { kind: 'env', value: 'production' },
      { kind: 'assigned', assignee: 'me' },
      { kind: 'assigned', assignee: 'none' },
    ]);
    expect(parse('environment:staging assigned:ana@example.com')).toMatchObject([
      { kind: 'env', value: 'staging' },
      { kind: 'assigned', assignee: { email: 'ana@example.com' } },
    ]);
  });

  it('reads release:, level: and url: with globs', () => {
    expect(parse('release:1.2.* level:warning level:f* url:*/checkout*')).toMatchObject([
      { kind: 'occurrence', field: 'release', value: '1.2.*' },
      { kind: 'occurrence', field: 'level', value: 'warning' },
      { kind: 'occurrence', field: 'level', value: 'f*' },
      { kind: 'occurrence', field: 'url', value: '*/checkout*' },
    ]);
  });

  it('reads any other key as a tag, with quoted values and globs', () => {
    expect(parse('browser:Chrome feature:checkout-* os.name:"Mac OS X"')).toMatchObject([
      { kind: 'tag', key: 'browser', value: 'Chrome' },
      { kind: 'tag', key: 'feature', value: 'checkout-*' },
      { kind: 'tag', key: 'os.name', value: 'Mac OS X' },
    ]);
  });

  it('reads first-seen: and last-seen: as relative or ISO times', () => {
    expect(parse('first-seen:-24h last-seen:-7d last-seen:-30m first-seen:-2w')).toMatchObject([
      { kind: 'seen', which: 'first', op: '>', at: new Date('2026-11-27T12:00:00Z') },
      { kind: 'seen', which: 'last', op: '>', at: new Date('2026-11-21T12:00:00Z') },
      { kind: 'seen', which: 'last', op: '>', at: new Date('2026-11-28T11:30:00Z') },
      { kind: 'seen', which: 'first', op: '>', at: new Date('2026-11-14T12:00:00Z') },
    ]);
    expect(
      parse(
        'first-seen:>2026-11-01 last-seen:<2026-11-20T10:30 first-seen:<2026-11-02T00:00+02:00',
      ),
    ).toMatchObject([
      { which: 'first', op: '>', at: new Date('2026-11-01T00:00:00Z') },
      { which: 'last', op: '<', at: new Date('2026-11-20T10:30:00Z') },
      { which: 'first', op: '<', at: new Date('2026-11-01T22:00:00Z') },
    ]);
  });

  it('reads times-seen: with >, <, = and a bare count', () => {
    expect(parse('times-seen:>10 times-seen:<5 times-seen:=3 times-seen:7')).toMatchObject([
      { kind: 'times-seen', op: '>', count: 10 },
      { kind: 'times-seen', op: '<', count: 5 },
      { kind: 'times-seen', op: '=', count: 3 },
      { kind: 'times-seen', op: '=', count: 7 },
    ]);
  });

  it('reads free text, quoted phrases, and text that only looks keyed', () => {
    expect(parse('timeout "cannot read properties" 127.0.0.1:5432 http://x.test')).toMatchObject([
      { kind: 'text', text: 'timeout' },
      { kind: 'text', text: 'cannot read properties' },
      { kind: 'text', text: '127.0.0.1:5432' },
      { kind: 'text', text: 'http://x.test' },
    ]);
    expect(parse('   ')).toEqual([]);
  });

  it('negates any term with !', () => {
    expect(parse('!is:ignored !browser:Safari !"health check" !times-seen:>3')).toMatchObject([
      { kind: 'status', status: 'ignored', negated: true, token: '!is:ignored' },
      { kind: 'tag', key: 'browser', negated: true },
      { kind: 'text', text: 'health check', negated: true },
      { kind: 'times-seen', negated: true },
    ]);
  });
});

describe('parseSearch: errors name the token', () => {
  it.each([
    ['is:open', 'is:open', /unresolved, resolved, ignored/],
    ['source:go', 'source:go', /one of ruby, js/],
    ['level:loud', 'level:loud', /fatal, error, warning, info, debug/],
    ['assigned:bob', 'assigned:bob', /me, none or a member/],
    ['first-seen:yesterday', 'first-seen:yesterday', /-24h/],
    ['last-seen:>2026-13-45', 'last-seen:>2026-13-45', /ISO date/],
    ['first-seen:2026-11-01', 'first-seen:2026-11-01', /> or </],
    ['times-seen:many', 'times-seen:many', />N, <N or =N/],
    ['env:', 'env:', /needs a value/],
    ['browser:"Chrome', 'browser:"Chrome', /not closed/],
    ['"open phrase', '"open phrase', /not closed/],
    ['browser:Chr"ome"', 'browser:Chr"ome"', /quote the whole value/],
    ['!', '!', /term after the !/],
    ['""', '""', /empty phrase/],
  ])('%s', (query, token, why) => {
    const error = refusal(`is:unresolved ${query}`);
    expect(error.token).toBe(token);
    expect(error.why).toMatch(why);
  });

  it('refuses a query over the length limit', () => {
    expect(refusal('x'.repeat(201)).why).toMatch(/at most 200/);
  });
});

describe('query editing and globs', () => {
  it('replaces a key’s terms, negated or not, and keeps the rest', () => {
    expect(withKeyReplaced('is:resolved timeout !source:js', ['source'], 'source:ruby')).toBe(
      'is:resolved timeout source:ruby',
    );
    expect(withKeyReplaced('env:"a b" x', ['env', 'environment'], undefined)).toBe('x');
    expect(withKeyReplaced('"open', ['is'], 'is:resolved')).toBe('"open is:resolved');
    expect(searchValue('two words')).toBe('"two words"');
  });

  it('turns * into % and keeps LIKE’s own characters literal', () => {
    expect(globPattern('checkout-*')).toBe('checkout-%');
    expect(globPattern('50%_off*')).toBe('50\\%\\_off%');
  });
});
