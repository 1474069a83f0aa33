import { Router, type Response } from 'express';
import type { Db } from '@ferry/db';
import { can } from '../capabilities.js';
import type { WebDeps } from '../deps.js';
import { pageContext, seat, send } from '../request-context.js';
import { html, type SafeHtml } from '../views/html.js';
import { layout, workspaceBase } from '../views/layout.js';

/**
 * Cards later features add to the Dashboard (the local-agent Dispatch card goes here). Each renders
 * itself for the current seat; the dashboard only lays them out.
 */
export type DashboardCard = (deps: { db: Db }, res: Response) => Promise<SafeHtml>;
export const dashboardCards: DashboardCard[] = [];

export function dashboardRoutes({ db }: WebDeps): Router {
  const router = Router({ mergeParams: true });
  router.get('/', async (req, res) => {
    const { workspace, member } = seat(res);
    const base = workspaceBase(workspace);
    const [rooms, feedback] = await Promise.all([
      db
        .selectFrom('room_members')
        .innerJoin('rooms', 'rooms.id', 'room_members.room_id')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('room_members.member_id', '=', member.id)
        .where('room_members.left_at', 'is', null)
        .where('rooms.kind', '=', 'channel')
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('feedback')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('workspace_id', '=', workspace.id)
        .where('status', '=', 'new')
        .executeTakeFirstOrThrow(),
    ]);
    const extra = await Promise.all(dashboardCards.map((card) => card({ db }, res)));
    send(
      res,
      layout(pageContext(req, res), {
        title: 'Dashboard',
        section: 'dashboard',
        body: html`<h1>${workspace.name}</h1>
          <div class="cards">
            <section class="card" aria-labelledby="rooms-card">
              <h2 id="rooms-card">Rooms</h2>
              <p>You are in <strong>${rooms.n}</strong> room${rooms.n === '1' ? '' : 's'}.</p>
              <a href="${base}/rooms">Open rooms →</a>
            </section>
            ${
              can(member.role, 'feedback.read')
                ? html`<section class="card" aria-labelledby="feedback-card">
                    <h2 id="feedback-card">Feedback</h2>
                    <p>
                      <strong>${feedback.n}</strong> new ticket${feedback.n === '1' ? '' : 's'}
                      waiting for triage.
                    </p>
                    <a href="${base}/feedback">Open the inbox →</a>
                  </section>`
                : ''
            }
            ${extra}
          </div>`,
      }),
    );
  });
  return router;
}
