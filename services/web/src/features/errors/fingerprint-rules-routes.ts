import type { Request } from 'express';
import { z } from 'zod';
import type { Db } from '@ferry/db';
import type { RouteTable } from '@ferry/http';
import {
  fingerprintRulesSource,
  parseFingerprintRules,
  saveFingerprintRules,
  testFingerprintRules,
  type RuleSyntaxError,
} from '@ferry/workspace';
import { capability } from '../../shared/access.js';
import { keptText, redirectWithForm, takeForm } from '../../shared/kept-form.js';
import { flash, seat } from '../../shared/request-context.js';
import type { FingerprintRulesCardData } from './fingerprint-rules-views.js';
import { errorSettingsPath } from './setup-views.js';

/** The kept form's name: a refused save, or a test, comes back to the page with its text. */
const RULES_FORM = 'errors.fingerprint-rules';

/** The posted text; a field posted twice counts once, and anything else is no rules. */
const rulesBody = z.object({
  rules: z
    .union([z.string(), z.array(z.string()).transform((values) => values[0] ?? '')])
    .catch(''),
});

const errorLines = (errors: readonly RuleSyntaxError[]): string =>
  errors.map((error) => `line ${error.line}: ${error.message}`).join('\n');

/**
 * What the card shows: the saved rules, or the text a refused save or a test came back with
 * (Post/Redirect/Get); after a test, the test is run again here, on the kept text, so the result
 * page is one a reload can show.
 */
export async function fingerprintRulesCardData(
  req: Request,
  db: Db,
  workspaceId: string,
  canConfigure: boolean,
): Promise<FingerprintRulesCardData> {
  const kept = takeForm(req, RULES_FORM);
  if (!kept) {
    return { source: await fingerprintRulesSource(db, workspaceId), errors: [], canConfigure };
  }
  const source = keptText(kept, 'rules') ?? '';
  const errors = kept.errors.rules ? kept.errors.rules.split('\n') : [];
  const data: FingerprintRulesCardData = { source, errors, canConfigure };
  if (errors.length === 0 && keptText(kept, 'test') && canConfigure) {
    const parsed = parseFingerprintRules(source);
    if (parsed.ok) data.tested = await testFingerprintRules(db, workspaceId, parsed.rules);
  }
  return data;
}

/** POST …/fingerprint-rules (save) and …/fingerprint-rules/test (try without saving). */
export function fingerprintRuleRoutes(routes: RouteTable, db: Db): void {
  routes.post('/fingerprint-rules', capability('errors.configure'), async (req, res) => {
    const { workspace } = seat(res);
    const { rules } = rulesBody.parse(req.body ?? {});
    const back = `${errorSettingsPath(workspace)}#fingerprint-rules`;
    const saved = await saveFingerprintRules(db, workspace.id, rules);
    if (!saved.ok) {
      flash(req, 'error', 'The fingerprint rules were not saved: see the marked lines below.');
      redirectWithForm(req, res, back, RULES_FORM, {
        values: { rules },
        errors: { rules: errorLines(saved.errors) },
      });
      return;
    }
    flash(
      req,
      'ok',
      'Fingerprint rules saved. New occurrences are grouped by them; groups already made stay as they are.',
    );
    res.redirect(303, back);
  });

  routes.post('/fingerprint-rules/test', capability('errors.configure'), (req, res) => {
    const { workspace } = seat(res);
    const { rules } = rulesBody.parse(req.body ?? {});
    const parsed = parseFingerprintRules(rules);
    redirectWithForm(req, res, `${errorSettingsPath(workspace)}#fingerprint-rules`, RULES_FORM, {
      values: parsed.ok ? { rules, test: '1' } : { rules },
      errors: parsed.ok ? {} : { rules: errorLines(parsed.errors) },
    });
  });
}
