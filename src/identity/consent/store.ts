import type { Database } from '../../kit/db.ts';
import { isoUtc } from '../../kit/sql.ts';
import { revokeAppAccess } from '../oidc/store.ts';

/** Records consent: one oauth_consents row per (principal, app) and one consent_grants row per scope. */
export async function recordConsent(
  db: Database,
  principalId: string,
  clientId: string,
  scopes: string[],
): Promise<void> {
  await db.transaction(async (tx) => {
    const app = await tx.query<{ id: string }>('SELECT id FROM oauth_apps WHERE client_id = $1', [clientId]);
    const appId = app.rows[0]?.id;
    if (!appId) return;
    await tx.query(
      `INSERT INTO oauth_consents (principal_id, app_id, scopes) VALUES ($1, $2, $3)
       ON CONFLICT (principal_id, app_id) DO UPDATE SET
         scopes = CASE WHEN oauth_consents.revoked THEN EXCLUDED.scopes
                       ELSE (SELECT jsonb_agg(DISTINCT s) FROM jsonb_array_elements_text(oauth_consents.scopes || EXCLUDED.scopes) s) END,
         granted = true, granted_at = now(), revoked = false, revoked_at = NULL, revoked_reason = NULL, updated_at = now()`,
      [principalId, appId, JSON.stringify(scopes)],
    );
    for (const scope of scopes) {
      await tx.query(
        'INSERT INTO consent_grants (principal_id, client_id, scope) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [principalId, clientId, scope],
      );
    }
  });
}

/** The scopes this principal has already consented to for this app. */
export async function consentedScopes(db: Database, principalId: string, clientId: string): Promise<Set<string>> {
  const r = await db.query<{ scope: string }>(
    'SELECT scope FROM consent_grants WHERE principal_id = $1 AND client_id = $2',
    [principalId, clientId],
  );
  return new Set(r.rows.map((x) => x.scope));
}

export async function touchConsent(db: Database, principalId: string, clientId: string): Promise<void> {
  await db.query(
    'UPDATE oauth_consents SET last_used_at = now() WHERE principal_id = $1 AND app_id = (SELECT id FROM oauth_apps WHERE client_id = $2)',
    [principalId, clientId],
  );
}

export interface ConsentView {
  id: string;
  app_id: string;
  client_id: string;
  app_name: string;
  scopes: string[];
  granted_at: string;
  last_used_at: string | null;
  revoked: boolean;
  revoked_at: string | null;
  revoked_reason: string | null;
}

/** A principal's consents in the order they were recorded, `limit` of them after the position `after` (a previous row's `position`). */
export async function listConsents(
  db: Database,
  principalId: string,
  page: { limit: number; after?: readonly [string, string] | undefined },
): Promise<(ConsentView & { position: [string, string] })[]> {
  const r = await db.query<ConsentView & { sort_at: string }>(
    `SELECT c.id, c.app_id, a.client_id, a.name AS app_name, c.scopes, ${isoUtc('c.granted_at')} AS granted_at, ${isoUtc('c.last_used_at')} AS last_used_at,
            c.revoked, ${isoUtc('c.revoked_at')} AS revoked_at, c.revoked_reason, c.created_at::text AS sort_at
       FROM oauth_consents c JOIN oauth_apps a ON a.id = c.app_id
      WHERE c.principal_id = $1 AND ($2::timestamptz IS NULL OR (c.created_at, c.id) > ($2::timestamptz, $3::uuid))
      ORDER BY c.created_at, c.id LIMIT $4`,
    [principalId, page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit],
  );
  return r.rows.map(({ sort_at, ...c }) => ({ ...c, position: [sort_at, c.id] }));
}

/**
 * Withdraws a principal's consent to an app: the consent is marked revoked, its per-scope rows go, and
 * every token, code and grant the app holds for that principal is revoked with it.
 */
export async function revokeConsent(
  db: Database,
  principalId: string,
  appId: string,
  reason: string,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const c = await tx.query<{ client_id: string }>(
      `UPDATE oauth_consents c SET revoked = true, revoked_at = now(), revoked_reason = $3, updated_at = now()
         FROM oauth_apps a WHERE a.id = c.app_id AND c.principal_id = $1 AND c.app_id = $2 AND NOT c.revoked RETURNING a.client_id`,
      [principalId, appId, reason],
    );
    const clientId = c.rows[0]?.client_id;
    if (!clientId) return false;
    await tx.query('DELETE FROM consent_grants WHERE principal_id = $1 AND client_id = $2', [principalId, clientId]);
    await revokeAppAccess(tx, principalId, clientId, 'consent_revoked');
    return true;
  });
}
