import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import type { ProviderIdentity } from '../../kit/upstream-login/provider.ts';
import { createHuman } from '../principals/store.ts';
import { findHumanByEmail, normaliseEmail } from '../principals/view.ts';
import { SignInRefused, type Resolved } from '../social/link.ts';
import type { ConnectorSecrets } from './store.ts';

/** The role a person made or linked by the connector gets in its organization. */
export const SSO_MEMBER_ROLE = 'member';

/**
 * The principal an enterprise connector signs in, just in time. Unlike social login, the organization's IdP is
 * authoritative for its domains: the email must be one it verified and at one of the connector's domains, and then it
 * is the person with that address here (linked if they exist, made if not, whatever the platform's own verification
 * says), made a member of the organization if not already.
 */
export async function resolveEnterprise(db: Database, c: ConnectorSecrets, who: ProviderIdentity): Promise<Resolved> {
  const email = who.email ? normaliseEmail(who.email) : undefined;
  if (!email) throw new SignInRefused((t) => t.noEmail);
  if (!who.emailVerified) throw new SignInRefused((t) => t.ssoUnverified(email));
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (!c.domains.includes(domain)) throw new SignInRefused((t) => t.ssoForeignDomain(domain));
  const provider = `sso-${c.organizationId}`;
  let principalId: string;
  let how: Resolved['how'];
  const existing = await findHumanByEmail(db, email);
  if (existing) {
    principalId = existing.id;
    how = 'linked';
  } else {
    try {
      principalId = (await createHuman(db, { email, displayName: who.name, emailVerified: true })).id;
      how = 'created';
    } catch (err) {
      // Made a moment ago by another first sign-in: it is found now.
      if (err instanceof HttpError && err.statusCode === 409) return resolveEnterprise(db, c, who);
      throw err;
    }
  }
  await db.transaction(async (tx) => {
    // The link follows the address: an upstream account that signed in another address before moves with it.
    await tx.query(
      `INSERT INTO external_identities (provider, subject, email, email_verified, last_login_at, principal_id)
       VALUES ($1, $2, $3, true, now(), $4)
       ON CONFLICT (provider, subject) DO UPDATE SET email = $3, email_verified = true, last_login_at = now(),
         principal_id = $4, updated_at = now()`,
      [provider, who.subject, email, principalId],
    );
    await tx.query(
      `INSERT INTO principal_memberships (organization_id, principal_id, role) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING`,
      [c.organizationId, principalId, SSO_MEMBER_ROLE],
    );
  });
  return { principalId, how };
}
