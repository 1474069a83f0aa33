import type { Workspace } from '@ferry/db';
import {
  RULE_MATCHERS,
  RULE_TEST_OCCURRENCES,
  RULE_VARIABLES,
  type RuleTestResult,
} from '@ferry/workspace';
import { html, type SafeHtml } from '../../shared/html.js';
import { csrfField, workspaceBase, type PageContext } from '../../shared/layout.js';

export interface FingerprintRulesCardData {
  /** The textarea's text: the saved rules, or what was typed when a save or test came back. */
  source: string;
  /** Syntax errors, each "line N: …"; none when the text parsed. */
  errors: string[];
  /** Set after "Test these rules": what they would regroup. */
  tested?: RuleTestResult;
  canConfigure: boolean;
}

const codes = (names: readonly string[]): SafeHtml[] =>
  names.map((name, i) => html`${i ? ', ' : ''}<code class="nowrap">${name}</code>`);

function testResult(workspace: Pick<Workspace, 'id' | 'slug'>, tested: RuleTestResult): SafeHtml {
  const base = workspaceBase(workspace);
  const matched = tested.groups.reduce((sum, group) => sum + group.matched, 0);
  return html`<div class="rule-test" data-testid="rule-test" role="status">
    <h3>Test result</h3>
    <p>
      ${matched} of the last ${tested.looked.toLocaleString('en-US')} occurrences would be
      regrouped${tested.groups.length ? ', from these groups:' : '.'}
    </p>
    ${
      tested.groups.length
        ? html`<ul class="rule-test-groups">
            ${tested.groups.map(
              (group) =>
                html`<li>
                  <a href="${base}/errors/${group.id}">${group.errorClass}</a>
                  <span class="muted">${group.matched} matched, by ${group.rule}</span>
                </li>`,
            )}
          </ul>`
        : ''
    }
  </div>`;
}

/** The Error reporting page's fingerprint rules card (issue 43, part 5). */
export function fingerprintRulesCard(
  ctx: PageContext,
  workspace: Pick<Workspace, 'id' | 'slug'>,
  action: string,
  data: FingerprintRulesCardData,
): SafeHtml {
  const invalid = data.errors.length > 0;
  return html`<section
    class="card"
    aria-labelledby="fingerprint-rules"
    data-testid="fingerprint-rules-card"
  >
    <h2 id="fingerprint-rules">Fingerprint rules</h2>
    <p>
      Your own grouping, in Sentry's fingerprint-rule syntax: one rule a line,
      <code>matcher:value … -&gt; fingerprint</code>. Values are <code>*</code> globs (quote them
      when they hold spaces), every matcher of a line must match, and the first matching rule
      decides. Matchers: ${codes(RULE_MATCHERS)}, <code>tags.&lt;key&gt;</code>. The fingerprint is
      fixed names and variables separated by commas:
      ${codes(RULE_VARIABLES.map((v) => `{{ ${v} }}`))}, <code>{{ tags.&lt;key&gt; }}</code>.
    </p>
    ${
      data.canConfigure
        ? html`<form
            method="post"
            action="${action}"
            novalidate
            data-testid="fingerprint-rules-form"
          >
            ${csrfField(ctx)}
            <div class="field ${invalid ? 'has-error' : ''}">
              <label for="f-rules">Rules</label>
              <textarea
                id="f-rules"
                name="rules"
                rows="6"
                autocapitalize="off"
                autocomplete="off"
                spellcheck="false"
                placeholder="error.type:*Timeout stack.abs_path:app/payments/* -> payment-timeouts"
                ${
                  invalid
                    ? html`aria-invalid="true" aria-describedby="f-rules-error"`
                    : html`aria-describedby="f-rules-hint"`
                }
              >
${data.source}</textarea>
              ${
                invalid
                  ? html`<ul class="error" id="f-rules-error" data-testid="rule-errors">
                      ${data.errors.map((error) => html`<li>${error}</li>`)}
                    </ul>`
                  : html`<p class="hint" id="f-rules-hint">
                      <code># comments</code> and blank lines are skipped. Rules group new
                      occurrences only: groups already made stay as they are.
                    </p>`
              }
            </div>
            <div class="button-row">
              <button type="submit">Save rules</button>
              <button type="submit" class="secondary" formaction="${action}/test">
                Test these rules
              </button>
            </div>
          </form>`
        : html`<pre class="code" data-testid="fingerprint-rules-saved">
${data.source || 'No rules: the default grouping applies.'}</pre>`
    }
    ${data.tested ? testResult(workspace, data.tested) : ''}
    <p class="hint after-buttons">
      "Test these rules" checks the last ${RULE_TEST_OCCURRENCES.toLocaleString('en-US')}
      occurrences without saving.
    </p>
  </section>`;
}
