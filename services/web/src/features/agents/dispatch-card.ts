import { agentStatus, can, listAgents } from '@ferry/workspace';
import type { PageCard } from '../../shared/page-cards.js';
import { seat } from '../../shared/request-context.js';
import { dispatchCard } from './views.js';

/** The Dispatch card for the Dashboard and the API tokens page (passed in as a plug-in card). */
export const dispatchCardPlugin: PageCard = async ({ db }, res) => {
  const { workspace, member } = seat(res);
  const agents = (await listAgents(db, workspace.id)).map((a) => agentStatus(a));
  return dispatchCard(workspace, agents, can(member.role, 'settings.manage'));
};
