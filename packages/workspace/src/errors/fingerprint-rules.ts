/**
 * Fingerprint rules (issue 43, part 5): a workspace's own grouping, in the subset of Sentry's
 * fingerprinting-rules syntax that applies to Ferry's reports
 * (docs.sentry.io/concepts/data-management/event-grouping/fingerprint-rules/):
 *
 *     # every TimeoutError from the payment client is one issue
 *     error.type:TimeoutError stack.module:"payments.*" -> payment-timeouts
 *     tags.feature:checkout-* -> {{ default }}, {{ environment }}
 *
 * One rule a line; `#` starts a comment line. Matchers are `key:value`, the value a `*` glob
 * (quoted when it holds spaces), and every matcher of a line must match. The first rule that
 * matches decides. The output after `->` is comma-separated parts: fixed names, or variables.
 *
 * Pure: parsing never touches the database, so the settings page can show every syntax error
 * with its line number before anything is stored.
 */
import { globMatches } from './alert-filters.js';

/** Sentry's matcher names that Ferry's reports can answer. */
export const RULE_MATCHERS = [
  'error.type',
  'error.value',
  'message',
  'stack.function',
  'stack.abs_path',
  'stack.module',
  'release',
  'environment',
] as const;
type MatcherName = (typeof RULE_MATCHERS)[number] | `tags.${string}`;

/** Variables an output can name; `{{ default }}` is the fingerprint Ferry would have computed. */
export const RULE_VARIABLES = [
  'default',
  'error.type',
  'error.value',
  'message',
  'stack.function',
  'stack.module',
  'release',
  'environment',
] as const;
type VariableName = (typeof RULE_VARIABLES)[number] | `tags.${string}`;

/** Big enough for any team's rules; small enough that every report can run them all. */
export const RULES_MAX = 100;
export const RULES_SOURCE_MAX = 20_000;

export interface RuleMatcher {
  name: MatcherName;
  glob: string;
}

export type RuleOutputPart = { literal: string } | { variable: VariableName };

export interface FingerprintRule {
  /** 1-based line in the source, so a group can say which rule made it. */
  line: number;
  /** The line as written, trimmed. */
  text: string;
  matchers: RuleMatcher[];
  output: RuleOutputPart[];
}

export interface RuleSyntaxError {
  line: number;
  message: string;
}

export type ParsedRules =
  { ok: true; rules: FingerprintRule[] } | { ok: false; errors: RuleSyntaxError[] };

const KNOWN_MATCHERS: ReadonlySet<string> = new Set(RULE_MATCHERS);
const KNOWN_VARIABLES: ReadonlySet<string> = new Set(RULE_VARIABLES);
const TAG_KEY = /^tags\.[A-Za-z0-9_.:-]+$/;

/** Splits on unquoted whitespace; a token may be `key:"quoted value"`. Throws a message. */
function tokens(text: string): string[] {
  const found: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quoted && char === '\\' && i + 1 < text.length) {
      current += text[i + 1];
      i += 1;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (!quoted && /\s/.test(char)) {
      if (current) found.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (quoted) throw new Error('a quote is not closed');
  if (current) found.push(current);
  return found;
}

/** Index of the first `->` outside quotes, or -1. */
function arrowAt(text: string): number {
  let quoted = false;
  for (let i = 0; i < text.length - 1; i += 1) {
    if (text[i] === '"') quoted = !quoted;
    else if (!quoted && text[i] === '-' && text[i + 1] === '>') return i;
  }
  return -1;
}

function parseMatcher(token: string): RuleMatcher {
  const colon = token.indexOf(':');
  if (colon <= 0) throw new Error(`"${token}" is not a matcher (expected key:value)`);
  const name = token.slice(0, colon);
  const glob = token.slice(colon + 1);
  if (!KNOWN_MATCHERS.has(name) && !TAG_KEY.test(name)) {
    throw new Error(`unknown matcher "${name}" (use ${RULE_MATCHERS.join(', ')} or tags.<key>)`);
  }
  if (glob === '') throw new Error(`matcher "${name}" has no value`);
  return { name: name as MatcherName, glob };
}

function parseOutputPart(raw: string): RuleOutputPart {
  const part = raw.trim();
  const variable = /^\{\{\s*([^{}\s]+)\s*\}\}$/.exec(part);
  if (variable) {
    const name = variable[1]!;
    if (!KNOWN_VARIABLES.has(name) && !TAG_KEY.test(name)) {
      throw new Error(
        `unknown variable {{ ${name} }} (use ${RULE_VARIABLES.map((v) => `{{ ${v} }}`).join(', ')} or {{ tags.<key> }})`,
      );
    }
    return { variable: name as VariableName };
  }
  if (part.includes('{{') || part.includes('}}')) {
    throw new Error(`"${part}" is not a variable (write {{ name }} as a part of its own)`);
  }
  const literal = part.replace(/^"(.*)"$/s, '$1');
  if (literal === '') throw new Error('an output part is empty');
  return { literal };
}

function parseLine(text: string, line: number): FingerprintRule {
  tokens(text); // an unclosed quote is named as such, not as a missing "->"
  const arrow = arrowAt(text);
  if (arrow < 0) throw new Error('expected "->" and a fingerprint after the matchers');
  const left = tokens(text.slice(0, arrow));
  if (left.length === 0) throw new Error('a rule needs at least one matcher before "->"');
  const right = text.slice(arrow + 2).trim();
  if (right === '') throw new Error('nothing after "->"');
  if (/(^|\s)\w+="/.test(right)) {
    throw new Error('attributes after the fingerprint (title=…) are not supported');
  }
  return {
    line,
    text,
    matchers: left.map(parseMatcher),
    output: right.split(',').map(parseOutputPart),
  };
}

/** Parses a workspace's rules; every line's errors are reported, not just the first. */
export function parseFingerprintRules(source: string): ParsedRules {
  if (source.length > RULES_SOURCE_MAX) {
    return {
      ok: false,
      errors: [{ line: 1, message: `rules are limited to ${RULES_SOURCE_MAX} characters` }],
    };
  }
  const rules: FingerprintRule[] = [];
  const errors: RuleSyntaxError[] = [];
  source.split(/\r?\n/).forEach((raw, index) => {
    const text = raw.trim();
    if (text === '' || text.startsWith('#')) return;
    try {
      rules.push(parseLine(text, index + 1));
    } catch (error) {
      errors.push({ line: index + 1, message: (error as Error).message });
    }
  });
  if (rules.length > RULES_MAX) {
    errors.push({ line: rules[RULES_MAX]!.line, message: `at most ${RULES_MAX} rules` });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, rules };
}

/** What a rule looks at in one report. */
export interface RuleSubject {
  errorType: string;
  errorValue: string;
  message: string;
  frames: readonly { function?: string; absPath?: string; module?: string }[];
  release: string | null;
  environment: string | null;
  tags: Readonly<Record<string, string>>;
}

type FrameField = 'function' | 'absPath' | 'module';
const FRAME_FIELDS: Partial<Record<MatcherName, FrameField>> = {
  'stack.function': 'function',
  'stack.abs_path': 'absPath',
  'stack.module': 'module',
};

/** A single value the name reads, or undefined when the report has none (a stack.* is per frame). */
function valueOf(subject: RuleSubject, name: string): string | undefined {
  switch (name) {
    case 'error.type':
      return subject.errorType;
    case 'error.value':
      return subject.errorValue;
    case 'message':
      return subject.message;
    case 'release':
      return subject.release ?? undefined;
    case 'environment':
      return subject.environment ?? undefined;
    case 'stack.function':
    case 'stack.module':
      return subject.frames.find((frame) => frame[FRAME_FIELDS[name]!])?.[FRAME_FIELDS[name]!];
    default:
      return name.startsWith('tags.') ? subject.tags[name.slice(5)] : undefined;
  }
}

function matches(matcher: RuleMatcher, subject: RuleSubject): boolean {
  const field = FRAME_FIELDS[matcher.name];
  // As in Sentry, a stack matcher matches when any frame of the stack does.
  if (field) {
    return subject.frames.some((frame) => {
      const value = frame[field];
      return value !== undefined && globMatches(matcher.glob, value);
    });
  }
  const value = valueOf(subject, matcher.name);
  return value !== undefined && globMatches(matcher.glob, value);
}

/** The first rule whose every matcher matches, or undefined. */
export function firstMatchingRule(
  rules: readonly FingerprintRule[],
  subject: RuleSubject,
): FingerprintRule | undefined {
  return rules.find((rule) => rule.matchers.every((matcher) => matches(matcher, subject)));
}

/**
 * The rule's output for this report, as the parts a group key is hashed from: `{{ default }}`
 * becomes Ferry's own fingerprint; a variable the report lacks becomes an empty part (so
 * `{{ release }}` groups reports without a release together, as Sentry does).
 */
export function ruleFingerprintParts(
  rule: FingerprintRule,
  subject: RuleSubject,
  defaultFingerprint: string,
): string[] {
  return rule.output.map((part) =>
    'literal' in part
      ? part.literal
      : part.variable === 'default'
        ? defaultFingerprint
        : (valueOf(subject, part.variable) ?? ''),
  );
}

/** How a group made by a rule names it: "line 3: error.type:Timeout* -> payment-timeouts". */
export function ruleLabel(rule: FingerprintRule): string {
  return `line ${rule.line}: ${rule.text}`;
}
