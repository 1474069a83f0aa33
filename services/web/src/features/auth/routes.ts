import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppError, fieldErrors } from '@ferry/core';
import { hitRateLimit } from '@ferry/http';
import type { WebDeps } from '../../deps.js';
import {
  authenticate,
  signInSchema,
  signUp,
  signUpSchema,
  listWorkspacesForUser,
} from '@ferry/workspace';
import { locals, renderPage } from '../../shared/request-context.js';
import { keptText, redirectWithForm, takeForm, type KeptForm } from '../../shared/kept-form.js';
import { loginPage, signupPage } from './views.js';
import { access, routeTable, type RouteTable } from '@ferry/http';

/** Only same-site relative paths are followed after sign-in (no open redirect). */
function safeNext(value: unknown): string | undefined {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) ? value : undefined;
}

/** Regenerate the session id at sign-in so a planted id cannot be reused (session fixation). */
function startSession(req: Request, userId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    req.session.regenerate((err) => {
      if (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      req.session.userId = userId;
      req.session.save((saveErr) =>
        saveErr
          ? reject(saveErr instanceof Error ? saveErr : new Error(String(saveErr)))
          : resolve(),
      );
    });
  });
}

/**
 * Password guessing is slowed per account and per client address (fixed one-minute windows in
 * Redis, shared by every web process): past the limit, sign-in and sign-up answer 429 with
 * Retry-After before any password is hashed or compared.
 */
async function signInThrottle(
  deps: Pick<WebDeps, 'redis' | 'config' | 'settings'>,
  req: Request,
  account: string | undefined,
): Promise<number | undefined> {
  const { perAccount, perAddress } = deps.settings.signInLimits;
  const prefix = `${deps.config.REDIS_PREFIX}:signin`;
  const byAddress = await hitRateLimit(
    deps.redis,
    `${prefix}:ip:${req.ip ?? 'unknown'}`,
    perAddress,
  );
  if (byAddress !== undefined || !account) return byAddress;
  const digest = createHash('sha256').update(account.trim().toLowerCase()).digest('hex');
  return hitRateLimit(deps.redis, `${prefix}:account:${digest}`, perAccount);
}

function tooManyAttempts(retryAfter: number): AppError {
  return new AppError(
    'rate_limited',
    `Too many attempts. Wait ${retryAfter} seconds, then try again.`,
    { headers: { 'Retry-After': String(retryAfter) } },
  );
}

// The sign-in and sign-up forms, as kept-form.ts names them. Only the email and name are kept for
// the page after a refusal: the password never goes into the session.
const LOGIN_FORM = 'auth.login';
const SIGNUP_FORM = 'auth.signup';

/** The form's page, carrying `next` (e.g. back to an invite link) as the form did. */
function formPath(path: '/login' | '/signup', next: string | undefined): string {
  return next ? `${path}?next=${encodeURIComponent(next)}` : path;
}

/** A refused sign-in or sign-up: back to its page (303), which shows why, with `kept` filled in. */
function refuse(
  req: Request,
  res: Response,
  path: '/login' | '/signup',
  next: string | undefined,
  kept: KeptForm,
): void {
  redirectWithForm(
    req,
    res,
    formPath(path, next),
    path === '/login' ? LOGIN_FORM : SIGNUP_FORM,
    kept,
  );
}

export function authRoutes(deps: WebDeps): RouteTable {
  const { db } = deps;
  const routes = routeTable();

  routes.get('/', access.public('sign-in pages'), async (_req, res) => {
    const user = locals(res).user;
    if (!user) {
      res.redirect('/login');
      return;
    }
    const workspaces = await listWorkspacesForUser(db, user.id);
    const [first] = workspaces.items;
    res.redirect(workspaces.total === 1 && first ? `/w/${first.id}/${first.slug}` : '/workspaces');
  });

  routes.get('/login', access.public('sign-in pages'), async (req, res) => {
    if (locals(res).user) {
      res.redirect(safeNext(req.query.next) ?? '/');
      return;
    }
    const kept = takeForm(req, LOGIN_FORM);
    const values = { email: keptText(kept, 'email'), next: safeNext(req.query.next) };
    await renderPage(req, res, (ctx) => loginPage(ctx, { values, errors: kept?.errors }));
  });

  routes.post('/login', access.public('signing in'), async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const next = safeNext(body.next);
    const account = typeof body.email === 'string' ? body.email : undefined;
    const values = { email: account ?? '' };
    const retryAfter = await signInThrottle(deps, req, account);
    if (retryAfter !== undefined) {
      // Not a refused form but a refused attempt: 429 with Retry-After, which scripts read (see
      // signInThrottle); /login is a page a GET opens, so this address never dead-ends.
      res.setHeader('Retry-After', String(retryAfter));
      const errors = { _: tooManyAttempts(retryAfter).message };
      await renderPage(
        req,
        res,
        (ctx) => loginPage(ctx, { values: { ...values, next }, errors }),
        429,
      );
      return;
    }
    const parsed = signInSchema.safeParse(body);
    if (!parsed.success) {
      return refuse(req, res, '/login', next, { values, errors: fieldErrors(parsed.error) });
    }
    const user = await authenticate(db, parsed.data.email, parsed.data.password);
    if (!user) {
      // The same words whether or not the email has an account (no account enumeration).
      const errors = { _: 'That email and password do not match an account.' };
      return refuse(req, res, '/login', next, { values, errors });
    }
    await startSession(req, user.id);
    res.redirect(next ?? '/');
  });

  routes.get('/signup', access.public('sign-in pages'), async (req, res) => {
    const kept = takeForm(req, SIGNUP_FORM);
    const values = {
      name: keptText(kept, 'name'),
      email: keptText(kept, 'email'),
      next: safeNext(req.query.next),
    };
    await renderPage(req, res, (ctx) => signupPage(ctx, { values, errors: kept?.errors }));
  });

  routes.post('/signup', access.public('signing up'), async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const next = safeNext(body.next);
    const values = {
      name: typeof body.name === 'string' ? body.name : '',
      email: typeof body.email === 'string' ? body.email : '',
    };
    const retryAfter = await signInThrottle(deps, req, undefined);
    if (retryAfter !== undefined) {
      res.setHeader('Retry-After', String(retryAfter));
      const errors = { _: tooManyAttempts(retryAfter).message };
      await renderPage(
        req,
        res,
        (ctx) => signupPage(ctx, { values: { ...values, next }, errors }),
        429,
      );
      return;
    }
    const parsed = signUpSchema.safeParse(body);
    if (!parsed.success) {
      return refuse(req, res, '/signup', next, { values, errors: fieldErrors(parsed.error) });
    }
    try {
      const user = await signUp(db, parsed.data);
      await startSession(req, user.id);
      // From an invite link: back to it, to join. Otherwise: make a first workspace.
      res.redirect(next ?? '/workspaces/new');
    } catch (error) {
      if (error instanceof AppError && error.options.fields) {
        return refuse(req, res, '/signup', next, { values, errors: error.options.fields });
      }
      throw error;
    }
  });

  routes.post('/logout', access.public('signing out ends only this session'), (req, res, next) => {
    req.session.destroy((err) => {
      if (err) {
        next(err);
        return;
      }
      res.clearCookie('ferry.sid');
      res.redirect('/login');
    });
  });

  return routes;
}
