import type { Database } from '../../kit/db.ts';
import type { Role } from '../auth/roles.ts';
import type { ProviderIdentity } from './provider.ts';

export interface SignInUser {
  id: number;
  tenantId: number;
  email: string;
  role: Role;
}

/**
 * Who a provider's account is here. Nobody joins a tenant by signing in:
 * 1. an account that signed in before is matched on (provider, subject), whatever its email now;
 * 2. otherwise a user an admin created (or the bootstrap owner) is matched on the provider's
 *    *verified* email, and the account is linked to that user;
 * 3. otherwise there is no one to sign in as.
 * A person in several tenants chooses one with `tenant`; without it the tenant they used last wins.
 */
export async function findSignInUser(
  db: Database,
  provider: string,
  who: ProviderIdentity,
  tenantSlug: string | null,
): Promise<SignInUser | undefined> {
  return db.transaction(async (tx) => {
    const order = `ORDER BY u.last_login_at DESC NULLS LAST, u.id LIMIT 1`;
    const tenantFilter = `AND ($3::text IS NULL OR t.slug = $3)`;
    const linked = await tx.query<SignInUser & { tenant_id: number }>(
      `SELECT u.id, u.tenant_id, u.email, u.role FROM user_identities i JOIN users u ON u.id = i.user_id JOIN tenants t ON t.id = u.tenant_id
        WHERE i.provider = $1 AND i.subject = $2 AND u.active ${tenantFilter} ${order}`,
      [provider, who.subject, tenantSlug],
    );
    let row = linked.rows[0];
    if (!row && who.email && who.emailVerified) {
      const byEmail = await tx.query<SignInUser & { tenant_id: number }>(
        `SELECT u.id, u.tenant_id, u.email, u.role FROM users u JOIN tenants t ON t.id = u.tenant_id
          WHERE lower(u.email) = lower($2) AND u.active AND $1::text IS NOT NULL ${tenantFilter} ${order}`,
        [provider, who.email, tenantSlug],
      );
      row = byEmail.rows[0];
    }
    if (!row) return undefined;
    await tx.query(
      `INSERT INTO user_identities (user_id, provider, subject) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [row.id, provider, who.subject],
    );
    return { id: row.id, tenantId: row.tenant_id, email: row.email, role: row.role };
  });
}
