import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EnterpriseRouting } from '../interaction/pages.ts';
import { findHumanByEmail } from '../principals/view.ts';
import { sendToProvider, type SocialDeps } from '../social/sign-in.ts';
import { enterpriseProvider, enterpriseProviderId, type EnterpriseDeps } from './provider.ts';
import { connectorOfDomain } from './store.ts';

/**
 * The sign-in form's routing by the address's domain: bound to an organization's connector, the browser goes to that
 * IdP (as its button would), unless the address is a platform admin's, who signs in with the password.
 */
export function enterpriseRouting(deps: EnterpriseDeps & { social: SocialDeps }): EnterpriseRouting {
  return {
    async route(email: string, request: FastifyRequest, uid: string) {
      const domain = email.slice(email.lastIndexOf('@') + 1);
      if (!domain) return undefined;
      const c = await connectorOfDomain(deps.db, deps.secretKey, domain);
      if (!c) return undefined;
      if ((await findHumanByEmail(deps.db, email))?.human?.isPlatformAdmin) return undefined;
      const upstream = enterpriseProvider(deps, c);
      return {
        domain,
        organization: c.organizationName,
        go: (reply: FastifyReply) =>
          sendToProvider(deps.social, request, reply, uid, enterpriseProviderId(c.organizationId), upstream),
      };
    },
  };
}
