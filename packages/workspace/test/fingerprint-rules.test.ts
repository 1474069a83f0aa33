import { describe, expect, it } from 'vitest';
import {
  firstMatchingRule,
  parseFingerprintRules,
  ruleFingerprintParts,
  ruleSubject,
  type FingerprintRule,
  type RuleSubject,
} from '../src/index.js';

function rules(source: string): FingerprintRule[] {
  const parsed = parseFingerprintRules(source);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.rules;
}

const subject: RuleSubject = {
  errorType: 'ReadTimeout',
  errorValue: 'read timed out after 30s',
  message: 'read timed out after 30s',
  frames: [
    { function: 'charge', absPath: 'app/payments/client.rb' },
    { function: 'checkout', absPath: 'app/controllers/orders.rb', module: 'orders' },
  ],
  release: 'shop@2.4.1',
  environment: 'production',
  tags: { feature: 'checkout-v2' },
};

describe('fingerprint rule parser', () => {
  it('reads matchers, quoted values, comments and outputs with variables', () => {
    const parsed = rules(
      [
        '# a comment',
        '',
        'error.type:"Read Timeout*" stack.function:charge -> payment-timeouts',
        'tags.feature:checkout-* -> {{ default }}, {{ tags.feature }}, "fixed part"',
      ].join('\n'),
    );
    expect(parsed).toEqual([
      {
        line: 3,
        text: 'error.type:"Read Timeout*" stack.function:charge -> payment-timeouts',
        matchers: [
          { name: 'error.type', glob: 'Read Timeout*' },
          { name: 'stack.function', glob: 'charge' },
        ],
        output: [{ literal: 'payment-timeouts' }],
      },
      {
        line: 4,
        text: 'tags.feature:checkout-* -> {{ default }}, {{ tags.feature }}, "fixed part"',
        matchers: [{ name: 'tags.feature', glob: 'checkout-*' }],
        output: [{ variable: 'default' }, { variable: 'tags.feature' }, { literal: 'fixed part' }],
      },
    ]);
  });

  it('reports every bad line with its number', () => {
    const parsed = parseFingerprintRules(
      [
        'error.type:Timeout -> ok',
        'error.type:Timeout',
        'culprit:foo -> x',
        'error.type:"open -> x',
        'message:x -> {{ nope }}',
        '-> x',
        'message:x ->',
        'message:x -> a title="b"',
        'message: -> x',
      ].join('\n'),
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.map((e) => e.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    expect(parsed.errors[0]!.message).toMatch(/expected "->"/);
    expect(parsed.errors[1]!.message).toMatch(/unknown matcher "culprit"/);
    expect(parsed.errors[2]!.message).toMatch(/quote/);
    expect(parsed.errors[3]!.message).toMatch(/unknown variable \{\{ nope \}\}/);
    expect(parsed.errors[4]!.message).toMatch(/at least one matcher/);
    expect(parsed.errors[5]!.message).toMatch(/nothing after/);
    expect(parsed.errors[6]!.message).toMatch(/attributes/);
    expect(parsed.errors[7]!.message).toMatch(/no value/);
  });
});

describe('fingerprint rule matching', () => {
  const match = (source: string) => firstMatchingRule(rules(source), subject)?.line;

  it('matches whole values with * globs, and every matcher of a line must match', () => {
    expect(match('error.type:*Timeout -> x')).toBe(1);
    expect(match('error.type:Timeout -> x')).toBeUndefined();
    expect(match('error.value:"read timed out*" -> x')).toBe(1);
    expect(match('message:*30s -> x')).toBe(1);
    expect(match('release:shop@2.* environment:production -> x')).toBe(1);
    expect(match('release:shop@2.* environment:staging -> x')).toBeUndefined();
    expect(match('tags.feature:checkout-* -> x')).toBe(1);
    expect(match('tags.missing:* -> x')).toBeUndefined();
  });

  it('a stack matcher matches when any frame does', () => {
    expect(match('stack.function:checkout -> x')).toBe(1);
    expect(match('stack.abs_path:app/payments/* -> x')).toBe(1);
    expect(match('stack.module:orders -> x')).toBe(1);
    expect(match('stack.function:refund -> x')).toBeUndefined();
  });

  it('the first matching rule wins', () => {
    expect(match('error.type:Nope -> a\nerror.type:Read* -> b\nerror.type:* -> c')).toBe(2);
  });

  it('fills variables, with an empty part for what the report lacks', () => {
    const [rule] = rules(
      'error.type:* -> {{ default }}, {{ error.type }}, {{ stack.function }}, {{ release }}, {{ tags.none }}, name',
    );
    expect(ruleFingerprintParts(rule!, subject, 'abc')).toEqual([
      'abc',
      'ReadTimeout',
      'charge',
      'shop@2.4.1',
      '',
      'name',
    ]);
  });

  it('reads a native report’s backtrace lines as frames', () => {
    const native = ruleSubject({
      error_class: 'ReadTimeout',
      message: 'boom',
      backtrace: ["app/payments/client.rb:12:in `charge'", 'lib/http.rb:40'],
      environment: null,
      source: 'api',
      app_version: '1.0.0',
      context: { tags: { feature: 'x' } },
    });
    expect(native.frames).toEqual([
      { absPath: 'app/payments/client.rb', function: 'charge' },
      { absPath: 'lib/http.rb' },
    ]);
    expect(native).toMatchObject({ release: '1.0.0', tags: { feature: 'x' }, errorValue: 'boom' });
  });
});
