import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import formbody from '@fastify/formbody';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { randomToken, sha256Hex } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';
import type { Throttle } from '../../kit/throttle.ts';
import { checkPassword } from '../principals/store.ts';
import { hasTotp } from '../mfa/totp.ts';
import { hasPasskey } from '../mfa/passkeys.ts';
import { findPrincipal, normaliseEmail } from '../principals/view.ts';
import { LOGIN_COOKIE, loginCookie, readCookie } from '../sessions/cookie.ts';
import { findLoginSession, startLoginSession } from '../sessions/store.ts';
import type { CsrfTokens } from '../pages/csrf.ts';
import { html, sameOrigin } from '../pages/interaction-routes.ts';
import { errorPage } from '../pages/layout.ts';
import { signInPage } from '../pages/templates.ts';
import { agentsPage, type AgentCard } from './page.ts';
import { agentIdsOf, approve, deny, findApproval, liveDelegatedTokens, revokeApproval } from './store.ts';

export interface AgentPageDeps {
  db: Database;
  csrf: CsrfTokens;
  throttle: Throttle;
  loginSessionTtl: number;
  issuer: string;
}

/** Before signing in there is no session to bind the form to: a random cookie stands in (so a forged sign-in form fails). */
const PRE_COOKIE = '__Host-svc_agents_pre';
const tags = ['sign-in'];
const Html = { 200: Type.String(), 303: Type.Null(), 400: Type.String(), 401: Type.String(), 403: Type.String(), 404: Type.String(), 429: Type.String() };
const Form = Type.Object({
  csrf: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.Optional(Type.String({ maxLength: 320 })),
  password: Type.Optional(Type.String({ maxLength: 1024 })),
  decision: Type.Optional(Type.String({ maxLength: 10 })),
}, { additionalProperties: true });
const NOTICES: Record<string, string> = { approve: 'The agent was approved.', deny: 'The request was declined.', revoke: 'The agent was revoked; its tokens no longer work.' };

/** The person's agents page (`/agents`): pending requests to approve or deny, approved agents to revoke. */
export async function registerAgentPages(app: App, deps: AgentPageDeps): Promise<void> {
  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    await scope.register(formbody, { bodyLimit: 16 * 1024 });
    scope.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, request, reply) => {
      const status = err instanceof HttpError ? err.statusCode : err.validation ? 400 : err.statusCode ?? 500;
      if (status < 400 || status >= 500) throw err;
      request.log.info({ status, err: err.message }, 'page request refused');
      return html(reply, status, errorPage('Request refused', 'The form could not be read. Go back to the agents page and try again.'));
    });

    const signIn = (reply: Parameters<typeof html>[0], status: number, error?: string, email?: string) => {
      const pre = randomToken(16);
      reply.header('set-cookie', `${PRE_COOKIE}=${pre}; Path=/; Max-Age=3600; HttpOnly; Secure; SameSite=Lax`);
      return html(reply, status, signInPage({ action: '/agents/signin', csrf: deps.csrf.issue(`agents-signin:${sha256Hex(pre)}`), email, error, appName: 'your agents' }));
    };

    scope.get('/agents', {
      schema: { operationId: 'agentsPage', tags, summary: "The person's agents: approve or deny pending requests, revoke approvals (signs in first)", querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 10 })) }), response: Html },
    }, async (request, reply) => {
      const token = readCookie(request.headers.cookie, LOGIN_COOKIE);
      const session = await findLoginSession(deps.db, token);
      const person = session ? await findPrincipal(deps.db, session.principalId) : undefined;
      if (!person) return signIn(reply, 200);
      const [ids, tokens] = await Promise.all([agentIdsOf(deps.db, person.id), liveDelegatedTokens(deps.db, person.id)]);
      const agents: AgentCard[] = [];
      for (const id of ids) {
        const [agent, approval] = await Promise.all([findPrincipal(deps.db, id), findApproval(deps.db, person.id, id)]);
        if (!agent?.agent || !approval) continue;
        agents.push({
          id, name: agent.displayName, modelId: agent.agent.modelId, version: agent.agent.version, status: approval.status, scopes: approval.scopes,
          pendingScopes: approval.pending_scopes, liveTokens: tokens.filter((t) => t.actor_id === id).length, approvedAt: approval.approved_at,
        });
      }
      return html(reply, 200, agentsPage({ accountLabel: person.identifier, csrf: deps.csrf.issue(`agents:${sha256Hex(token!)}`), agents, notice: NOTICES[request.query.done ?? ''] }));
    });

    scope.post('/agents/signin', {
      schema: { operationId: 'agentsSignIn', tags, summary: 'Sign in to the agents page (email, password, CSRF field)', body: Form, response: Html },
    }, async (request, reply) => {
      const pre = readCookie(request.headers.cookie, PRE_COOKIE);
      if (!sameOrigin(request, deps.issuer) || !pre || !deps.csrf.verify(`agents-signin:${sha256Hex(pre)}`, request.body.csrf)) {
        return html(reply, 403, errorPage('Request refused', 'This form has expired or was not sent from the sign-in page. Go back and try again.'));
      }
      const email = normaliseEmail(String(request.body.email ?? ''));
      const password = String(request.body.password ?? '');
      if (!email || !password) return signIn(reply, 400, 'Enter your email address and your password.', email);
      // The same slow-down per account and address as the interaction's sign-in page.
      const keys = [`account:${sha256Hex(email)}`, `address:${request.ip}`];
      const wait = await deps.throttle.waitSeconds(keys);
      if (wait > 0) {
        reply.header('retry-after', String(wait));
        return signIn(reply, 429, `Too many failed sign-in attempts. Wait ${wait} second${wait === 1 ? '' : 's'} and try again.`, email);
      }
      const human = await checkPassword(deps.db, email, password);
      if (!human) {
        await deps.throttle.fail(keys);
        return signIn(reply, 401, 'The email address or the password is not correct.', email);
      }
      await deps.throttle.succeed(keys[0]!);
      // A password alone must not start a login session for someone with a second factor (src/identity/mfa): the
      // session would also sign them in to every app. They sign in through an app's sign-in page, which asks for it.
      if ((await hasTotp(deps.db, human.id)) || (await hasPasskey(deps.db, human.id))) {
        return signIn(reply, 403, 'Your account uses two-step verification. Sign in through an application that uses this service, then open this page again.', email);
      }
      const token = await startLoginSession(deps.db, human.id, deps.loginSessionTtl, { ip: request.ip, userAgent: request.headers['user-agent'] });
      return reply.code(303).header('set-cookie', [loginCookie(token, deps.loginSessionTtl), `${PRE_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`])
        .header('cache-control', 'no-store').redirect('/agents', 303);
    });

    scope.post('/agents/:agentId/decision', {
      schema: { operationId: 'agentDecision', tags, summary: "Approve or deny an agent's pending request, or revoke an approval (CSRF field, decision)", params: Type.Object({ agentId: Type.String({ format: 'uuid' }) }), body: Form, response: Html },
    }, async (request, reply) => {
      const token = readCookie(request.headers.cookie, LOGIN_COOKIE);
      const session = await findLoginSession(deps.db, token);
      if (!session) return html(reply, 401, errorPage('Signed out', 'Your session ended. Open the agents page and sign in again.'));
      if (!sameOrigin(request, deps.issuer) || !deps.csrf.verify(`agents:${sha256Hex(token!)}`, request.body.csrf)) {
        return html(reply, 403, errorPage('Request refused', 'This form has expired or was not sent from the agents page. Go back and try again.'));
      }
      const { agentId } = request.params;
      const decision = request.body.decision;
      const person = session.principalId;
      const done = decision === 'approve' ? await approve(deps.db, person, agentId, person)
        : decision === 'deny' ? await deny(deps.db, person, agentId)
        : decision === 'revoke' ? await revokeApproval(deps.db, person, agentId, 'user_initiated')
        : undefined;
      if (done === undefined) return html(reply, 400, errorPage('Request refused', 'Choose Approve, Deny or Revoke.'));
      if (!done) return html(reply, 404, errorPage('Nothing to change', 'This agent has no request or approval to change. Go back to the agents page.'));
      return reply.code(303).header('cache-control', 'no-store').redirect(`/agents?done=${decision}`, 303);
    });
  });
}
