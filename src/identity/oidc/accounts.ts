import type { Database } from '../../kit/db.ts';
import { createCache, type Cache } from '../../kit/cache.ts';
import type { InvalidationBus } from '../../kit/invalidation.ts';

export interface AccountView {
  id: string;
  type: string;
  identifier: string;
  displayName: string;
  active: boolean;
  allowedScopes: string[];
  email: string | null;
  emailVerified: boolean;
  givenName: string | null;
  familyName: string | null;
  locale: string | null;
  timezone: string | null;
  isPlatformAdmin: boolean;
  updatedAt: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Principals as the provider sees them (sub, claims, username for introspection), cached for a few
 * seconds because introspection asks for the same few principals over and over. A change (a deactivated
 * principal) invalidates it on every instance at once through the bus when Redis is configured.
 */
export class AccountDirectory {
  private readonly db: Database;
  private readonly cache: Cache<AccountView | undefined>;

  constructor(db: Database, ttlMs = 5_000, bus?: InvalidationBus) {
    this.db = db;
    this.cache = createCache({ name: 'principals', load: (id) => this.read(id), ttlMs, maxEntries: 50_000, bus });
  }

  invalidate(id?: string): void {
    this.cache.invalidate(id);
  }

  async find(id: string | undefined): Promise<AccountView | undefined> {
    if (!id || !UUID.test(id)) return undefined;
    return this.cache.get(id);
  }

  private async read(id: string): Promise<AccountView | undefined> {
    const r = await this.db.query<Record<string, unknown>>(
      `SELECT p.id, p.type, p.identifier, p.display_name, p.active, p.allowed_scopes, p.updated_at,
              h.email, h.email_verified_at, h.given_name, h.family_name, h.locale, h.timezone, h.is_platform_admin
         FROM principals p LEFT JOIN humans h ON h.principal_id = p.id WHERE p.id = $1`,
      [id],
    );
    const row = r.rows[0];
    const view: AccountView | undefined = row
      ? {
          id: String(row.id),
          type: String(row.type),
          identifier: String(row.identifier),
          displayName: String(row.display_name),
          active: Boolean(row.active),
          allowedScopes: Array.isArray(row.allowed_scopes) ? row.allowed_scopes.map(String) : [],
          email: (row.email as string | null) ?? null,
          emailVerified: row.email_verified_at != null,
          givenName: (row.given_name as string | null) ?? null,
          familyName: (row.family_name as string | null) ?? null,
          locale: (row.locale as string | null) ?? null,
          timezone: (row.timezone as string | null) ?? null,
          isPlatformAdmin: Boolean(row.is_platform_admin),
          updatedAt: Math.floor(new Date(row.updated_at as string).getTime() / 1000),
        }
      : undefined;
    return view;
  }
}

/** OpenID claims of a principal, by scope. */
export function claimsOf(account: AccountView): Record<string, unknown> {
  return {
    sub: account.id,
    email: account.email ?? undefined,
    email_verified: account.email ? account.emailVerified : undefined,
    name: account.displayName,
    given_name: account.givenName ?? undefined,
    family_name: account.familyName ?? undefined,
    locale: account.locale ?? undefined,
    zoneinfo: account.timezone ?? undefined,
    updated_at: account.updatedAt,
  };
}
