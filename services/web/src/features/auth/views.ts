import { html, type SafeHtml } from '../../shared/html.js';
import { csrfField, field, layout, type PageContext } from '../../shared/layout.js';

/** Sign-in and sign-up forms. `errors._` is a problem with the whole form (wrong password). */

export interface AuthFormData<Values> {
  values: Values;
  errors?: Record<string, string>;
}

export function loginPage(
  ctx: PageContext,
  { values, errors = {} }: AuthFormData<{ email?: string; next?: string | undefined }>,
): SafeHtml {
  return layout(ctx, {
    title: 'Sign in',
    body: html`<div class="card">
      <h1>Sign in to Ferry</h1>
      ${errors._ ? html`<div class="flash error" role="alert">${errors._}</div>` : ''}
      <form method="post" action="/login" novalidate>
        ${csrfField(ctx)}
        ${values.next ? html`<input type="hidden" name="next" value="${values.next}" />` : ''}
        ${field({ label: 'Email', name: 'email', type: 'email', value: values.email, error: errors.email, required: true, autocomplete: 'username' })}
        ${field({ label: 'Password', name: 'password', type: 'password', error: errors.password, required: true, autocomplete: 'current-password' })}
        <button type="submit">Sign in</button>
      </form>
      <p class="muted">
        No account yet?
        <a href="/signup${values.next ? `?next=${encodeURIComponent(values.next)}` : ''}"
          >Sign up</a
        >
      </p>
    </div>`,
  });
}

export function signupPage(
  ctx: PageContext,
  {
    values,
    errors = {},
  }: AuthFormData<{ name?: string; email?: string; next?: string | undefined }>,
): SafeHtml {
  return layout(ctx, {
    title: 'Sign up',
    body: html`<div class="card">
      <h1>Create your account</h1>
      ${errors._ ? html`<div class="flash error" role="alert">${errors._}</div>` : ''}
      <form method="post" action="/signup" novalidate>
        ${csrfField(ctx)}
        ${values.next ? html`<input type="hidden" name="next" value="${values.next}" />` : ''}
        ${field({ label: 'Name', name: 'name', value: values.name, error: errors.name, required: true, maxlength: 120, autocomplete: 'name' })}
        ${field({ label: 'Email', name: 'email', type: 'email', value: values.email, error: errors.email, required: true, autocomplete: 'email' })}
        ${field({ label: 'Password', name: 'password', type: 'password', error: errors.password, required: true, autocomplete: 'new-password', hint: 'At least 8 characters.' })}
        <button type="submit">Sign up</button>
      </form>
      <p class="muted">
        Already have an account?
        <a href="/login${values.next ? `?next=${encodeURIComponent(values.next)}` : ''}">Sign in</a>
      </p>
    </div>`,
  });
}
