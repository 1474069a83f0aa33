import type { Request, Response } from 'express';
import { AppError } from '@ferry/core';
import type { Member, Workspace } from '@ferry/db';
import {
  dispatchIdentity,
  findAuthorization,
  findInstallation,
  GitHubError,
  listAuthorizedMembers,
  listRepos,
  recordInstallation,
  removeAuthorization,
  saveAuthorization,
  setDispatchIdentity,
  setRepoSwitches,
  syncRepos,
  type GitHubClient,
} from '@ferry/github';
import { can, findMembership } from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { startGithubFlow, takeGithubFlow, type GithubFlow } from './flows.js';
import {
  flash,
  locals,
  noStore,
  renderPage,
  requireUser,
  seat,
} from '../../shared/request-context.js';
import { githubCallbackUrl, githubPage, githubProblemPage, githubSettingsPath } from './views.js';
import { redirectWithForm, takeForm } from '../../shared/kept-form.js';

/** The dispatch identity form of Settings → GitHub, as kept-form.ts names it. */
const IDENTITY_FORM = 'github.identity';
import { plural } from '../../shared/format.js';
import { access, routeTable, type RouteTable } from '@ferry/http';
import { capability, seatHolds } from '../../shared/access.js';

/**
 * Settings > GitHub ({base}/settings/github) and the two URLs GitHub sends people back to
 * (/github/setup after installing the App, /github/callback after authorizing). Every member sees
 * the page and may authorize themselves; connecting, repository switches and the dispatch
 * identity are for admins ('github.manage'), refused with 403 for anyone else.
 */

function notConfigured(): AppError {
  return new AppError(
    'not_found',
    'GitHub is not configured on this server: the GitHub settings page says what to set.',
  );
}

export function githubSettingsRoutes(deps: WebDeps): RouteTable {
  const { db, config, settings } = deps;
  const routes = routeTable();
  const admin = capability('github.manage');

  function client(): GitHubClient {
    if (!deps.github) throw notConfigured();
    return deps.github;
  }

  async function show(req: Request, res: Response, identityError?: string, status = 200) {
    const { workspace, member } = seat(res);
    const [installation, repos, own, authorized, identityId] = await Promise.all([
      findInstallation(db, workspace.id),
      listRepos(db, workspace.id),
      findAuthorization(db, member.id),
      listAuthorizedMembers(db, workspace.id),
      dispatchIdentity(db, workspace.id),
    ]);
    noStore(res);
    await renderPage(
      req,
      res,
      (ctx) =>
        githubPage(ctx, {
          workspace,
          publicUrl: config.PUBLIC_URL,
          settings: settings.github,
          canManage: can(member.role, 'github.manage'),
          installation,
          repos,
          own: own ? { login: own.github_login, since: own.created_at } : null,
          authorized,
          identityId,
          ...(identityError ? { identityError } : {}),
        }),
      status,
    );
  }

  const back = (res: Response) => res.redirect(303, githubSettingsPath(seat(res).workspace));

  routes.get('/', capability('github.authorize'), async (req, res) => {
    // A refused dispatch identity comes back here (303) with why.
    await show(req, res, takeForm(req, IDENTITY_FORM)?.errors.member_id);
  });

  // Install the App (or again, to pick other repositories): GitHub comes back to /github/setup.
  routes.post('/connect', admin, (req, res) => {
    const github = client();
    const { workspace, member } = seat(res);
    const state = startGithubFlow(req, {
      purpose: 'install',
      workspaceId: workspace.id,
      memberId: member.id,
    });
    res.redirect(303, github.installUrl(state));
  });

  routes.post('/refresh', admin, async (req, res) => {
    const github = client();
    const { workspace } = seat(res);
    const installation = await findInstallation(db, workspace.id);
    if (!installation) {
      flash(req, 'error', 'Connect GitHub first: there is no installation to read.');
      back(res);
      return;
    }
    try {
      const repos = await syncRepos(db, github, installation);
      const reachable = repos.filter((r) => r.reachable).length;
      flash(
        req,
        'ok',
        `Repositories refreshed: the installation reaches ${plural(reachable, 'repository', 'repositories')}.`,
      );
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      flash(req, 'error', `${error.message} ${retryHint(error)}`);
    }
    back(res);
  });

  routes.post('/repos/:repoId', admin, async (req, res) => {
    const { workspace } = seat(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const flag = (value: unknown) =>
      value === 'true' ? true : value === 'false' ? false : undefined;
    const switches = { linked: flag(body.linked), enabled: flag(body.enabled) };
    if (switches.linked === undefined && switches.enabled === undefined) {
      throw new AppError('bad_request', 'Send linked or enabled as true or false.');
    }
    const repo = await setRepoSwitches(db, workspace.id, String(req.params.repoId), {
      ...(switches.linked !== undefined ? { linked: switches.linked } : {}),
      ...(switches.enabled !== undefined ? { enabled: switches.enabled } : {}),
    });
    if (!repo) throw new AppError('not_found', 'No such repository in this workspace.');
    const state = repo.enabled
      ? repo.reachable
        ? 'is ready for dispatch'
        : 'is enabled, but the installation no longer reaches it'
      : repo.linked
        ? 'is linked; enable it to dispatch to it'
        : 'is unlinked and disabled';
    flash(req, 'ok', `${repo.full_name} ${state}.`);
    back(res);
  });

  // Any member: their own GitHub authorization (the OAuth web flow).
  routes.post('/authorize', capability('github.authorize'), (req, res) => {
    const github = client();
    const { workspace, member } = seat(res);
    const state = startGithubFlow(req, {
      purpose: 'authorize',
      workspaceId: workspace.id,
      memberId: member.id,
    });
    res.redirect(303, github.authorizeUrl(state, githubCallbackUrl(config.PUBLIC_URL)));
  });

  routes.post('/disconnect', capability('github.authorize'), async (req, res) => {
    const { workspace, member } = seat(res);
    const wasIdentity = (await dispatchIdentity(db, workspace.id)) === member.id;
    await removeAuthorization(db, member.id);
    flash(
      req,
      'ok',
      wasIdentity
        ? 'GitHub is disconnected. You were the dispatch identity: API dispatches are refused until an admin chooses another member.'
        : 'GitHub is disconnected: Ferry no longer holds a token of yours.',
    );
    back(res);
  });

  routes.post('/identity', admin, async (req, res) => {
    const { workspace } = seat(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const chosen = typeof body.member_id === 'string' ? body.member_id.trim() : '';
    try {
      await setDispatchIdentity(db, workspace.id, chosen || null);
    } catch (error) {
      if (error instanceof AppError && error.code === 'validation_failed') {
        redirectWithForm(req, res, githubSettingsPath(workspace), IDENTITY_FORM, {
          values: {},
          errors: { member_id: error.options.fields?.member_id ?? error.message },
        });
        return;
      }
      throw error;
    }
    const authorized = chosen ? await listAuthorizedMembers(db, workspace.id) : [];
    const who = authorized.find((m) => m.memberId === chosen);
    flash(
      req,
      'ok',
      who
        ? `Dispatches now run as ${who.name} (@${who.githubLogin}).`
        : 'No dispatch identity: ticket-page dispatches run as the person clicking; API dispatches are refused.',
    );
    back(res);
  });

  return routes;
}

function retryHint(error: GitHubError): string {
  if (error.retryable) return 'Try again in a minute.';
  if (error.kind === 'refused' || error.kind === 'unauthorized') {
    return 'If the App was uninstalled on GitHub, use Reconnect.';
  }
  return '';
}

/**
 * Where GitHub sends the browser back: a signed-in user with the `state` this session started;
 * these GETs record an installation or an authorization on purpose.
 */
const GITHUB_RETURN = {
  access: access.keyCheckedBy(
    'the OAuth state this session started; connecting the App also needs github.manage',
    'takeGithubFlow (single use), then seatHolds on the seat of the workspace the state names',
    requireUser,
  ),
  writes: "records the installation or the member's GitHub authorization",
  secrets: { query: ['code', 'state', 'installation_id'] },
};

/**
 * /github/setup and /github/callback: where GitHub sends the browser back. Both accept only a
 * `state` this session started (single use, ten minutes), for a seat the user still holds.
 */
export function githubFlowRoutes(deps: WebDeps): RouteTable {
  const { db, box, config } = deps;
  const routes = routeTable();
  const redirectUri = githubCallbackUrl(config.PUBLIC_URL);

  async function problem(
    req: Request,
    res: Response,
    status: number,
    title: string,
    message: string,
    back?: string,
  ): Promise<void> {
    noStore(res);
    await renderPage(
      req,
      res,
      (ctx) =>
        githubProblemPage(ctx, {
          title,
          message,
          back: back
            ? { href: back, label: 'Back to GitHub settings' }
            : { href: '/workspaces', label: 'Back to your workspaces' },
        }),
      status,
    );
  }

  const expired = (req: Request, res: Response) =>
    problem(
      req,
      res,
      400,
      'This GitHub link has expired',
      'It was already used, is more than ten minutes old, or was started in another browser. Start again from the GitHub settings page of your workspace.',
    );

  /** The flow's seat, still held; sets the page's workspace so the sidebar shows. */
  async function seatOf(
    res: Response,
    flow: GithubFlow,
  ): Promise<{ workspace: Workspace; member: Member } | undefined> {
    const user = locals(res).user;
    if (!user) return undefined;
    const membership = await findMembership(db, user.id, flow.workspaceId);
    if (!membership || membership.member.id !== flow.memberId) return undefined;
    locals(res).workspace = membership.workspace;
    locals(res).member = membership.member;
    return membership;
  }

  function github(): GitHubClient {
    if (!deps.github) throw notConfigured();
    return deps.github;
  }

  /** Starts the OAuth leg that proves `installationId` is the admin's. */
  function toAuthorize(req: Request, res: Response, flow: GithubFlow, installationId: string) {
    const state = startGithubFlow(req, {
      purpose: 'connect',
      installationId,
      workspaceId: flow.workspaceId,
      memberId: flow.memberId,
    });
    res.redirect(github().authorizeUrl(state, redirectUri));
  }

  routes.get('/setup', GITHUB_RETURN, async (req, res) => {
    const flow = takeGithubFlow(req, req.query.state, ['install']);
    if (!flow) return expired(req, res);
    const held = await seatOf(res, flow);
    if (!held || !seatHolds(held.member, 'github.manage')) {
      return problem(
        req,
        res,
        403,
        'You cannot connect GitHub here',
        'Connecting the GitHub App is for admins of the workspace that started it.',
      );
    }
    const settingsPath = githubSettingsPath(held.workspace);
    const installationId =
      typeof req.query.installation_id === 'string' ? req.query.installation_id : '';
    if (!installationId && req.query.setup_action === 'request') {
      flash(
        req,
        'ok',
        "GitHub sent the installation request to the organization's owners. Once one of them approves it, press Connect GitHub again.",
      );
      res.redirect(303, settingsPath);
      return;
    }
    if (!/^\d{1,20}$/.test(installationId)) {
      return problem(
        req,
        res,
        400,
        'GitHub did not name an installation',
        'The link from GitHub carried no installation. Press Connect GitHub to try again.',
        settingsPath,
      );
    }
    // A redirect's installation_id can be forged: it is recorded only once the admin's own token
    // lists it, after this authorization.
    toAuthorize(req, res, flow, installationId);
  });

  routes.get('/callback', GITHUB_RETURN, async (req, res) => {
    const flow = takeGithubFlow(req, req.query.state, ['connect', 'authorize', 'install']);
    if (!flow) return expired(req, res);
    const held = await seatOf(res, flow);
    if (!held) {
      return problem(
        req,
        res,
        403,
        'You cannot finish this here',
        'It was started for a seat you no longer hold in that workspace.',
      );
    }
    const settingsPath = githubSettingsPath(held.workspace);
    if (typeof req.query.error === 'string') {
      const cancelled = req.query.error === 'access_denied';
      flash(
        req,
        'error',
        cancelled
          ? 'GitHub authorization was cancelled, so nothing changed.'
          : `GitHub did not authorize Ferry (${req.query.error.slice(0, 80)}). Nothing changed; try again.`,
      );
      res.redirect(303, settingsPath);
      return;
    }
    // "Request user authorization during installation" sends the installation here, with a code.
    let purpose = flow.purpose;
    let installationId = flow.installationId;
    if (purpose === 'install') {
      const given = typeof req.query.installation_id === 'string' ? req.query.installation_id : '';
      if (!/^\d{1,20}$/.test(given)) return expired(req, res);
      purpose = 'connect';
      installationId = given;
    }
    const code = typeof req.query.code === 'string' ? req.query.code : '';
    if (!code || code.length > 200) {
      return problem(
        req,
        res,
        400,
        'GitHub sent no authorization code',
        'Start again from the GitHub settings page.',
        settingsPath,
      );
    }
    if (purpose === 'connect' && !seatHolds(held.member, 'github.manage')) {
      return problem(
        req,
        res,
        403,
        'You cannot connect GitHub here',
        'Connecting the GitHub App is for admins of this workspace.',
        settingsPath,
      );
    }

    const client = github();
    let login: string;
    let installations: Array<{ id: string; account: string }> = [];
    try {
      const tokens = await client.exchangeCode(code, redirectUri);
      const user = await client.getUser(tokens.token);
      login = user.login;
      await saveAuthorization(db, box, {
        workspaceId: held.workspace.id,
        memberId: held.member.id,
        user,
        tokens,
      });
      if (purpose === 'connect') installations = await client.userInstallations(tokens.token);
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      deps.logger.warn({ kind: error.kind, status: error.status }, 'github authorization failed');
      return problem(
        req,
        res,
        502,
        'GitHub could not finish the authorization',
        `${error.message} ${error.retryable ? 'Try again in a minute.' : 'Start again from the GitHub settings page.'}`,
        settingsPath,
      );
    }

    if (purpose === 'authorize') {
      flash(req, 'ok', `Authorized as @${login}.`);
      res.redirect(303, settingsPath);
      return;
    }

    const found = installations.find((i) => i.id === installationId);
    if (!found) {
      deps.logger.warn(
        { installationId, workspaceId: held.workspace.id },
        'github installation not listed for the admin',
      );
      return problem(
        req,
        res,
        403,
        'That installation is not yours',
        `GitHub does not list installation ${installationId ?? ''} of this App for @${login}, so it was not connected. Press Connect GitHub and install the App on an account or organization you administer.`,
        settingsPath,
      );
    }
    const installation = await recordInstallation(db, {
      workspaceId: held.workspace.id,
      installationId: found.id,
      accountLogin: found.account,
      memberId: held.member.id,
    });
    try {
      const repos = await syncRepos(db, client, installation);
      const reachable = repos.filter((r) => r.reachable).length;
      flash(
        req,
        'ok',
        `Connected to ${found.account} as @${login}: ${plural(reachable, 'repository', 'repositories')} found. Link and enable the ones tickets may be dispatched to.`,
      );
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      flash(
        req,
        'error',
        `Connected to ${found.account}, but its repositories could not be read: ${error.message} Use Refresh repositories.`,
      );
    }
    res.redirect(303, settingsPath);
  });

  return routes;
}
