import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { decodeCursor, pageOf, pageQuery, toPage } from '../../kit/paging.ts';
import { ADMIN } from '../access/rules.ts';
import { Errors, Nullable, Security, Uuid } from '../api/schemas.ts';
import { actorOf } from '../console/admin-changes.ts';
import type { TypedScope as AdminScope } from '../api/scope.ts';
import { ApprovalOut } from './agents-view.ts';
import { listDelegations } from './overview-store.ts';
import { approve, deny, findApproval } from './store.ts';

const Status = Type.Union(
  [
    Type.Literal('pending'),
    Type.Literal('approved'),
    Type.Literal('denied'),
    Type.Literal('revoked'),
    Type.Literal('none'),
  ],
  { description: 'none: an agent bound to the person that has asked nothing yet (or needs no approval).' },
);
const DelegationOut = Type.Object({
  person: Type.Object({
    id: Uuid,
    display_name: Type.String(),
    email: Nullable(Type.String()),
    active: Type.Boolean(),
  }),
  agent: Type.Object({
    id: Uuid,
    display_name: Type.String(),
    identifier: Type.String(),
    model_id: Type.String(),
    version: Nullable(Type.String()),
    requires_confirmation: Type.Boolean({ description: 'false: it acts for the person without their approval.' }),
    active: Type.Boolean(),
  }),
  approval: Nullable(ApprovalOut),
  live_tokens: Type.Integer({ description: 'Live tokens the agent (or one below it) holds for the person.' }),
});
const Position = Type.Tuple([Uuid, Uuid]);

/**
 * The delegations of the whole platform for the console (who acts for whom: `GET /api/v1/delegations`), and an admin's
 * answer to an agent's pending request on a person's behalf (approve, deny; the approval names the admin who gave it).
 * Withdrawing an approval is `DELETE /principals/:id/agents/:agentId/approval` (routes.ts).
 */
export async function registerDelegationOverviewRoutes(scope: AdminScope, deps: { db: Database }): Promise<void> {
  const tags = ['management'];
  const security = Security;

  scope.get(
    '/delegations',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listDelegations',
        tags,
        security,
        summary:
          'Every agent acting, or asking to act, for a person, with the approval and the live tokens it holds; filters by status, person and text',
        querystring: Type.Object(
          {
            ...pageQuery({ defaultLimit: 50, maxLimit: 200 }),
            status: Type.Optional(Status),
            person_id: Type.Optional(Uuid),
            q: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 200,
                description: "Part of the person's name or email, or of the agent's name, identifier or model",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: pageOf(DelegationOut), ...Errors },
      },
    },
    async (request) => {
      const q = request.query;
      const rows = await listDelegations(deps.db, {
        status: q.status,
        personId: q.person_id,
        text: q.q,
        after: decodeCursor(q.cursor, Position),
        limit: q.limit + 1,
      });
      return toPage(
        rows,
        q.limit,
        (d) => [d.person.id, d.agent.id],
        (d) => ({ person: d.person, agent: d.agent, approval: d.approval, live_tokens: d.live_tokens }),
      );
    },
  );

  for (const action of ['approve', 'deny'] as const) {
    scope.post(
      `/principals/:id/agents/:agentId/${action}`,
      {
        config: { access: ADMIN },
        schema: {
          operationId: `${action}AgentForPerson`,
          tags,
          security,
          summary:
            action === 'approve'
              ? "Approve an agent's pending request on the person's behalf: it may then act for them with those scopes (the approval names the admin)"
              : "Decline an agent's pending request on the person's behalf (what was approved before stays)",
          params: Type.Object({ id: Uuid, agentId: Uuid }),
          response: { 200: ApprovalOut, ...Errors },
        },
      },
      async (request) => {
        const { id, agentId } = request.params;
        const actor = actorOf(request);
        const done =
          action === 'approve'
            ? await approve(deps.db, id, agentId, actor.kind === 'person' ? actor.id : null)
            : await deny(deps.db, id, agentId);
        if (!done) throw new HttpError(404, 'NOT_FOUND', 'no pending request of this agent for this person');
        const {
          id: _i,
          principal_id: _p,
          agent_id: _a,
          created_at: _c,
          ...approval
        } = (await findApproval(deps.db, id, agentId))!;
        return approval;
      },
    );
  }
}
