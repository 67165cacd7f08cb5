import type { FastifyReply, FastifyRequest } from 'fastify';
import { heldScopes } from '../principals/console-rights.ts';
import type { Interaction } from 'oidc-provider';
import { consentedScopes, recordConsent, touchConsent } from '../consent/store.ts';
import { grantableScopes } from '../oidc/entitlement.ts';
import { errorPage } from '../web/layout.ts';
import { consentPage } from './templates.ts';
import { pageLanguage } from '../web/respond.ts';
import { pageBranding } from './branding.ts';
import type { InteractionPages, PageDeps } from './pages.ts';

/**
 * The consent step: the consent page while the app (not first-party) asks for scopes the person has not allowed it yet,
 * else (or once allowed) the consent recorded and the grant saved with what the app and the person are allowed.
 */
export async function consentStep(
  deps: PageDeps,
  pages: InteractionPages,
  request: FastifyRequest,
  reply: FastifyReply,
  d: Interaction,
  decided: 'allow' | undefined,
): Promise<FastifyReply> {
  const { lang, t: all } = pageLanguage(request, reply);
  const t = all.errors;
  const accountId = d.session?.accountId;
  const client = await pages.provider().Client.find(String(d.params.client_id));
  const account = await deps.accounts.find(accountId);
  if (!accountId || !client || !account)
    return pages.html(reply, 400, errorPage(t.requestFailedTitle, t.appOrAccountGone, lang));
  const Grant = pages.provider().Grant;
  // The grant this request adds to may have gone since the page was shown (consent withdrawn): what is missing
  // was computed against it, so the request must start again rather than build on nothing.
  const existing = d.grantId ? await Grant.find(d.grantId) : undefined;
  if (d.grantId && !existing) {
    return pages.html(reply, 400, errorPage(t.requestExpiredTitle, t.withdrawnWhileOpen, lang));
  }
  const missing = (d.prompt.details.missingOIDCScope as string[] | undefined) ?? [];
  const grantable = grantableScopes(missing, client.scope, heldScopes(account));
  const already = await consentedScopes(deps.db, accountId, client.clientId);
  const needsAnswer = client.first_party !== true && grantable.some((s) => !already.has(s));
  if (needsAnswer && decided !== 'allow') {
    return pages.html(
      reply,
      200,
      consentPage({
        action: `/interaction/${encodeURIComponent(d.uid)}/consent`,
        csrf: deps.csrf.issue(`consent:${d.jti}`),
        appName: client.clientName ?? client.clientId,
        scopes: grantable,
        accountLabel: account.identifier,
        ...(await pageBranding(deps.db, client, d.params)),
        loc: pageLanguage(reply.request, reply),
      }),
    );
  }
  if (client.first_party !== true) {
    if (needsAnswer) await recordConsent(deps.db, accountId, client.clientId, grantable);
    else await touchConsent(deps.db, accountId, client.clientId);
  }
  const grant = existing ?? new Grant({ accountId, clientId: client.clientId });
  if (grantable.length) grant.addOIDCScope(grantable.join(' '));
  const rejected = missing.filter((s) => !grantable.includes(s));
  if (rejected.length) grant.rejectOIDCScope(rejected.join(' '));
  const claims = d.prompt.details.missingOIDCClaims as string[] | undefined;
  if (claims?.length) grant.addOIDCClaims(claims);
  const grantId = await grant.save();
  return pages.finish(request, reply, { consent: { grantId } });
}

/** The consent form posted: deny finishes the request with access_denied, allow goes through the consent step. */
export async function submitConsent(
  deps: PageDeps,
  pages: InteractionPages,
  request: FastifyRequest<{ Body: { csrf?: string | undefined; decision?: string | undefined } }>,
  reply: FastifyReply,
  uid: string,
): Promise<FastifyReply> {
  const d = await pages.form(request, reply, uid, { prompt: 'consent', purpose: 'consent', page: 'consent' });
  if (!d) return reply;
  if (request.body.decision === 'deny') {
    return pages.finish(request, reply, { error: 'access_denied', error_description: 'the user denied the request' });
  }
  if (request.body.decision !== 'allow') {
    const { lang, t } = pageLanguage(request, reply);
    return pages.html(reply, 400, errorPage(t.errors.refused, t.errors.chooseAllowDeny, lang));
  }
  return consentStep(deps, pages, request, reply, d, 'allow');
}
