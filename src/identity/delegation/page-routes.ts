import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { TypedScope } from '../api/scope.ts';
import type { Database } from '../../kit/db.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { CsrfTokens } from '../web/csrf.ts';
import { formScope, html, pageLanguage } from '../web/respond.ts';
import { errorPage } from '../web/layout.ts';
import { AccountGuard, type AccountPage } from '../access/account-guard.ts';
import { signedInForm, signedInPage, SIGNED_IN_SECURITY } from '../access/rules.ts';
import { agentsPage } from './page.ts';
import { agentCards, decide } from './page-data.ts';
import { htmlAnswers, noticeOf } from '../web/page-answers.ts';

export interface AgentPageDeps {
  db: Database;
  accounts: PrincipalDirectory;
  csrf: CsrfTokens;
  issuer: string;
}

const tags = ['sign-in'];
const Html = htmlAnswers(200, 303, 400, 401, 403, 404);
const Form = Type.Object(
  {
    csrf: Type.Optional(Type.String({ maxLength: 200 })),
    decision: Type.Optional(Type.String({ maxLength: 10 })),
  },
  { additionalProperties: true },
);
const AGENTS: AccountPage = { path: '/agents', purpose: 'agents', name: 'the agents page' };
/** The notice after each decision, by the `done` query parameter (a key of the page's catalogue). */
const NOTICES = { approve: 'approved', deny: 'denied', revoke: 'revoked' } as const;
const notice = noticeOf(NOTICES);

/** The person's agents page (`/agents`): pending requests to approve or deny, approved agents to revoke. */
export async function registerAgentPages(app: App, deps: AgentPageDeps): Promise<void> {
  const guard = new AccountGuard(deps);
  await app.register(async (plain) => {
    const scope = formScope(plain, { retry: (t) => t.agents.formUnread });
    agentsPageRoute(scope, deps, guard);
    agentDecisionRoute(scope, deps, guard);
  });
}

function agentsPageRoute(scope: TypedScope, deps: AgentPageDeps, guard: AccountGuard): void {
  scope.get(
    '/agents',
    {
      config: { access: signedInPage(AGENTS.path) },
      schema: {
        security: SIGNED_IN_SECURITY,
        operationId: 'agentsPage',
        tags,
        summary:
          "The person's agents: approve or deny pending requests, revoke approvals (sends the browser to /signin first when signed out)",
        querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 10 })) }),
        response: Html,
      },
    },
    async (request, reply) => {
      // Signing in is the one sign-in of the account pages (password or social, then any second factor), and back here.
      const who = guard.page(request);
      const person = who.account;
      const agents = await agentCards(deps.db, person.id);
      const loc = pageLanguage(request, reply);
      const done = notice(request.query.done);
      return html(
        reply,
        200,
        agentsPage({
          accountLabel: person.identifier,
          csrf: guard.csrf(who, AGENTS),
          agents,
          notice: done && loc.t.agents[done],
          loc,
        }),
      );
    },
  );
}

function agentDecisionRoute(scope: TypedScope, deps: AgentPageDeps, guard: AccountGuard): void {
  scope.post(
    '/agents/:agentId/decision',
    {
      config: { access: signedInForm(AGENTS.path) },
      schema: {
        security: SIGNED_IN_SECURITY,
        operationId: 'agentDecision',
        tags,
        summary: "Approve or deny an agent's pending request, or revoke an approval (CSRF field, decision)",
        params: Type.Object({ agentId: Type.String({ format: 'uuid' }) }),
        body: Form,
        response: Html,
      },
    },
    async (request, reply) => {
      const who = guard.form(request, reply, AGENTS);
      if (!who) return reply;
      const decision = request.body.decision;
      const done = await decide(deps.db, who.account.id, request.params.agentId, decision);
      const { lang, t } = pageLanguage(request, reply);
      if (done === undefined) return html(reply, 400, errorPage(t.errors.refused, t.agents.unknownDecision, lang));
      if (!done) return html(reply, 404, errorPage(t.agents.nothingTitle, t.agents.nothing, lang));
      return reply.code(303).header('cache-control', 'no-store').redirect(`/agents?done=${decision}`, 303);
    },
  );
}
