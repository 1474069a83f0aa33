import type { Request, Response } from 'express';
import type { AppError } from '@ferry/core';
import { pageContext, send } from './request-context.js';
import { html } from './html.js';
import { layout } from './layout.js';

const TITLES: Record<number, string> = {
  400: 'That request could not be read',
  401: 'Please sign in',
  403: 'You do not have access to this',
  404: 'Page not found',
  413: 'That was too large',
  422: 'Please check your input',
  429: 'Too many requests',
  500: 'Something went wrong',
  503: 'Temporarily unavailable',
};

/** HTML errors for browsers; the status was already set by the error middleware. */
export function renderErrorPage(req: Request, res: Response, error: AppError): void {
  let ctx;
  try {
    ctx = pageContext(req, res);
  } catch {
    ctx = { csrfToken: '' };
  }
  const title = TITLES[error.status] ?? 'Something went wrong';
  send(
    res,
    layout(ctx, {
      title,
      body: html`<div class="empty">
        <h2>${title}</h2>
        <p>${error.message}</p>
        <p><a href="/">Back to Ferry</a></p>
      </div>`,
    }),
    error.status,
  );
}
