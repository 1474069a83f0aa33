import { Router, type Request, type Response } from 'express';
import { AppError } from '@ferry/core';
import { fieldErrors } from '@ferry/http';
import type { WebDeps } from '../deps.js';
import { authenticate, signInSchema, signUp, signUpSchema } from '../domain/users.js';
import { listWorkspacesForUser } from '../domain/workspaces.js';
import { locals, renderPage } from '../request-context.js';
import { html } from '../views/html.js';
import { csrfField, field } from '../views/layout.js';

/** Only same-site relative paths are followed after sign-in (no open redirect). */
function safeNext(value: unknown): string | undefined {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) ? value : undefined;
}

function loginPage(
  req: Request,
  res: Response,
  values: { email?: string; next?: string },
  errors: Record<string, string> = {},
  status = 200,
): void {
  renderPage(
    req,
    res,
    {
      title: 'Sign in',
      body: (ctx) =>
        html`<div class="card">
          <h1>Sign in to Ferry</h1>
          ${errors._ ? html`<div class="flash error" role="alert">${errors._}</div>` : ''}
          <form method="post" action="/login" novalidate>
            ${csrfField(ctx)}
            ${values.next ? html`<input type="hidden" name="next" value="${values.next}" />` : ''}
            ${field({ label: 'Email', name: 'email', type: 'email', value: values.email, error: errors.email, required: true, autocomplete: 'username' })}
            ${field({ label: 'Password', name: 'password', type: 'password', error: errors.password, required: true, autocomplete: 'current-password' })}
            <button type="submit">Sign in</button>
          </form>
          <p class="muted">No account yet? <a href="/signup">Sign up</a></p>
        </div>`,
    },
    status,
  );
}

function signupPage(
  req: Request,
  res: Response,
  values: { name?: string; email?: string },
  errors: Record<string, string> = {},
  status = 200,
): void {
  renderPage(
    req,
    res,
    {
      title: 'Sign up',
      body: (ctx) =>
        html`<div class="card">
          <h1>Create your account</h1>
          <form method="post" action="/signup" novalidate>
            ${csrfField(ctx)}
            ${field({ label: 'Name', name: 'name', value: values.name, error: errors.name, required: true, maxlength: 120, autocomplete: 'name' })}
            ${field({ label: 'Email', name: 'email', type: 'email', value: values.email, error: errors.email, required: true, autocomplete: 'email' })}
            ${field({ label: 'Password', name: 'password', type: 'password', error: errors.password, required: true, autocomplete: 'new-password', hint: 'At least 8 characters.' })}
            <button type="submit">Sign up</button>
          </form>
          <p class="muted">Already have an account? <a href="/login">Sign in</a></p>
        </div>`,
    },
    status,
  );
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

export function authRoutes({ db }: WebDeps): Router {
  const router = Router();

  router.get('/', async (_req, res) => {
    const user = locals(res).user;
    if (!user) {
      res.redirect('/login');
      return;
    }
    const workspaces = await listWorkspacesForUser(db, user.id);
    const [first] = workspaces;
    res.redirect(workspaces.length === 1 && first ? `/w/${first.id}/${first.slug}` : '/workspaces');
  });

  router.get('/login', (req, res) => {
    if (locals(res).user) {
      res.redirect(safeNext(req.query.next) ?? '/');
      return;
    }
    loginPage(req, res, { next: safeNext(req.query.next) });
  });

  router.post('/login', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const next = safeNext(body.next);
    const parsed = signInSchema.safeParse(body);
    if (!parsed.success) {
      loginPage(
        req,
        res,
        { email: typeof body.email === 'string' ? body.email : '', next },
        fieldErrors(parsed.error),
        422,
      );
      return;
    }
    const user = await authenticate(db, parsed.data.email, parsed.data.password);
    if (!user) {
      loginPage(
        req,
        res,
        { email: parsed.data.email, next },
        { _: 'That email and password do not match an account.' },
        401,
      );
      return;
    }
    await startSession(req, user.id);
    res.redirect(next ?? '/');
  });

  router.get('/signup', (req, res) => {
    signupPage(req, res, {});
  });

  router.post('/signup', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const values = {
      name: typeof body.name === 'string' ? body.name : '',
      email: typeof body.email === 'string' ? body.email : '',
    };
    const parsed = signUpSchema.safeParse(body);
    if (!parsed.success) {
      signupPage(req, res, values, fieldErrors(parsed.error), 422);
      return;
    }
    try {
      const user = await signUp(db, parsed.data);
      await startSession(req, user.id);
      res.redirect('/workspaces/new');
    } catch (error) {
      if (error instanceof AppError && error.options.fields) {
        signupPage(req, res, values, error.options.fields, error.status);
        return;
      }
      throw error;
    }
  });

  router.post('/logout', (req, res, next) => {
    req.session.destroy((err) => {
      if (err) {
        next(err);
        return;
      }
      res.clearCookie('ferry.sid');
      res.redirect('/login');
    });
  });

  return router;
}
