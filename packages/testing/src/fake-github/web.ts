import { URL } from 'node:url';
import { flatStrings, html, type Reply } from './http.js';
import { randomHex, type FakeState } from './state.js';
import type { RecordedRequest } from './types.js';

/**
 * The browser side of github.com: the OAuth authorize page and token endpoint, and the App's
 * install page. GitHub's REST description does not cover these (they live on the web host), so
 * they follow GitHub's docs pages (WEB_FLOW_DOCS): the token answer's fields, errors as HTTP 200
 * with `error`, codes good for ten minutes, a refresh token used once and the access token it
 * came with dead after it, and the setup URL's `installation_id` (which the docs warn can be
 * spoofed: Ferry checks it with GET /user/installations).
 */
export const WEB_FLOW_DOCS = [
  'docs.github.com/apps/creating-github-apps/authenticating-with-a-github-app/generating-a-user-access-token-for-a-github-app (read 2026-11-26)',
  'docs.github.com/apps/creating-github-apps/authenticating-with-a-github-app/refreshing-user-access-tokens (read 2026-11-26)',
  'docs.github.com/apps/creating-github-apps/registering-a-github-app/about-the-setup-url (read 2026-11-26)',
] as const;

const OAUTH_CODE_TTL_MS = 10 * 60 * 1000;

export type WebHandler = (request: RecordedRequest, params: Record<string, string>) => Reply;

export interface WebHooks {
  setupUrl(): string | null;
  callbackUrl(): string | null;
  nextInstallRepos(): Array<{ name: string; defaultBranch?: string }>;
}

export function webRoutes(state: FakeState, hooks: WebHooks): Record<string, WebHandler> {
  return {
    'GET /login/oauth/authorize': (request) => {
      if (request.query.client_id !== state.clientId) {
        return {
          status: 404,
          text: '<h1>404</h1><p>No OAuth app with that client_id.</p>',
          headers: html(),
        };
      }
      const redirect = request.query.redirect_uri ?? hooks.callbackUrl();
      if (!redirect) {
        return {
          status: 500,
          text: 'FakeGitHub: no redirect_uri given and callbackUrl is not set',
        };
      }
      const code = randomHex(10);
      state.oauthCodes.set(code, {
        login: state.actingUser().login,
        used: false,
        expiresAt: Date.now() + OAUTH_CODE_TTL_MS,
      });
      const location = new URL(redirect);
      location.searchParams.set('code', code);
      if (request.query.state !== undefined) {
        location.searchParams.set('state', request.query.state);
      }
      return { status: 302, headers: { location: location.toString() }, text: '' };
    },

    /** OAuth token endpoint: errors come back as HTTP 200 with an `error` field, as on GitHub. */
    'POST /login/oauth/access_token': (request) => {
      const params = { ...request.query, ...flatStrings(request.body) };
      if (params.client_id !== state.clientId || params.client_secret !== state.clientSecret) {
        return oauthError(
          'incorrect_client_credentials',
          'The client_id and/or client_secret passed are incorrect.',
        );
      }
      if (params.grant_type === 'refresh_token') {
        const refresh = state.refreshTokens.get(params.refresh_token ?? '');
        if (!refresh || refresh.used || refresh.expiresAt <= Date.now()) {
          return oauthError(
            'bad_refresh_token',
            'The refresh token passed is incorrect or expired.',
          );
        }
        // "Once you use a refresh token, that refresh token and the old user access token will
        // no longer work" (WEB_FLOW_DOCS).
        refresh.used = true;
        const previous = state.userTokens.get(refresh.accessToken);
        if (previous) previous.revoked = true;
        return { status: 200, json: state.issueUserTokens(refresh.login) };
      }
      const code = state.oauthCodes.get(params.code ?? '');
      if (!code || code.used || code.expiresAt <= Date.now()) {
        return oauthError('bad_verification_code', 'The code passed is incorrect or expired.');
      }
      code.used = true;
      return { status: 200, json: state.issueUserTokens(code.login) };
    },

    'GET /apps/{app_slug}/installations/new': (request, params) => {
      if (params.app_slug !== state.slug) {
        return { status: 404, text: '<h1>404</h1>', headers: html() };
      }
      const setupUrl = hooks.setupUrl();
      if (!setupUrl) {
        return {
          status: 500,
          text: 'FakeGitHub: setupUrl is not set, so the install flow has nowhere to go',
        };
      }
      const user = state.actingUser();
      const existing = [...state.installations.values()].find(
        (i) => i.account.kind === 'user' && i.account.user.login === user.login,
      );
      const installationId =
        existing?.id ??
        state.addInstallation({ account: user.login, repos: hooks.nextInstallRepos() }).id;
      const location = new URL(setupUrl);
      location.searchParams.set('installation_id', String(installationId));
      location.searchParams.set('setup_action', 'install');
      if (request.query.state !== undefined) {
        location.searchParams.set('state', request.query.state);
      }
      return { status: 302, headers: { location: location.toString() }, text: '' };
    },
  };
}

function oauthError(error: string, description: string): Reply {
  return {
    status: 200,
    json: {
      error,
      error_description: description,
      error_uri:
        'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors',
    },
  };
}
