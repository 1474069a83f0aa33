import type { Response } from 'express';
import type { Config } from '@ferry/core';
import { agentStatus, can, listAgents } from '@ferry/workspace';
import type { PageCard } from '../../shared/page-cards.js';
import { seat } from '../../shared/request-context.js';
import { agentPackage, installCommand } from './agent-package.js';
import { agentsPath, dispatchCard, type AgentInstall } from './views.js';

/**
 * How the signed-in seat adds an agent: the one command for this Ferry, the tarball it installs,
 * and (for who may make tokens, as on the API tokens page) the form that makes the token.
 */
export function agentInstall(config: Pick<Config, 'PUBLIC_URL'>, res: Response): AgentInstall {
  const { workspace, member } = seat(res);
  const pkg = agentPackage();
  return {
    command: installCommand(config.PUBLIC_URL),
    version: pkg.version,
    sha256: pkg.sha256,
    tarballUrl: `${config.PUBLIC_URL}/agent/${pkg.fileName}`,
    tokenForm: can(member.role, 'tokens.manage')
      ? {
          action: `${agentsPath(workspace)}/dispatch-token`,
          csrfToken: res.req.csrfToken?.() ?? '',
        }
      : undefined,
  };
}

/** The Dispatch card for the Dashboard and the API tokens page (passed in as a plug-in card). */
export function dispatchCardPlugin(config: Pick<Config, 'PUBLIC_URL'>): PageCard {
  return async ({ db }, res) => {
    const { workspace, member } = seat(res);
    const agents = (await listAgents(db, workspace.id)).map((a) => agentStatus(a));
    return dispatchCard(workspace, agents, {
      canConfigure: can(member.role, 'settings.manage'),
      install: agentInstall(config, res),
    });
  };
}
