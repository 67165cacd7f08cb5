import type { Database, Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { isoUtc } from '../../kit/sql.ts';
import { recordChange, type Actor } from '../events/record.ts';
import { applyPrincipalActive } from '../principals/store.ts';
import { appFromRow, type AppRecord } from '../apps/record.ts';
import { checkRedirectUri, createSecret, type SecretInfo } from '../apps/store.ts';
import { checkBrandColor } from '../apps/brand.ts';
import { checkLogoUrl } from '../apps/logo.ts';
import { checkClaimMappings, type ClaimMapping } from '../apps/claim-mappings.ts';

/** What PATCH /applications/:id may change, by column; its type and client_id stay what they were registered as. */
export interface AppChanges {
  name?: string | undefined;
  description?: string | null | undefined;
  logo_url?: string | null | undefined;
  redirect_uris?: string[] | undefined;
  allowed_scopes?: string[] | undefined;
  access_token_ttl?: number | undefined;
  refresh_token_ttl?: number | undefined;
  authorization_code_ttl?: number | undefined;
  refresh_token_rotation?: boolean | undefined;
  first_party?: boolean | undefined;
  resource_server?: boolean | undefined;
  dpop_bound_access_tokens?: boolean | undefined;
  email_code_sign_in?: boolean | undefined;
  brand_color?: string | null | undefined;
  backchannel_logout_uri?: string | null | undefined;
  backchannel_logout_session_required?: boolean | undefined;
  claim_mappings?: ClaimMapping[] | undefined;
  require_second_factor?: boolean | undefined;
}
type Column = keyof AppChanges;
/** Every column a change may name: the only names that reach the UPDATE's text. */
const COLUMNS: readonly Column[] = [
  'name',
  'description',
  'logo_url',
  'redirect_uris',
  'allowed_scopes',
  'access_token_ttl',
  'refresh_token_ttl',
  'authorization_code_ttl',
  'refresh_token_rotation',
  'first_party',
  'resource_server',
  'dpop_bound_access_tokens',
  'email_code_sign_in',
  'brand_color',
  'backchannel_logout_uri',
  'backchannel_logout_session_required',
  'claim_mappings',
  'require_second_factor',
];
const JSON_COLUMNS = new Set<Column>(['redirect_uris', 'allowed_scopes', 'claim_mappings']);

async function lockedApp(tx: Queryable, id: string): Promise<Record<string, unknown>> {
  const row = (await tx.query<Record<string, unknown>>('SELECT * FROM oauth_apps WHERE id = $1 FOR UPDATE', [id]))
    .rows[0];
  if (!row) throw new HttpError(404, 'NOT_FOUND', `no application ${id}`);
  return row;
}

/** The changes checked against the app as it is, by the rules createApp applies to a new one of its type. */
function check(app: AppRecord, c: AppChanges, knownScopes: readonly string[]): void {
  if (c.name !== undefined && !c.name.trim()) throw new HttpError(400, 'VALIDATION_ERROR', 'name must not be empty');
  if (c.redirect_uris) {
    if (app.allowedGrants.includes('authorization_code')) {
      if (c.redirect_uris.length === 0)
        throw new HttpError(400, 'VALIDATION_ERROR', `a ${app.appType} app needs at least one redirect URI`);
      for (const uri of c.redirect_uris) checkRedirectUri(uri, app.appType);
    } else if (c.redirect_uris.length > 0) {
      throw new HttpError(
        400,
        'VALIDATION_ERROR',
        `a ${app.appType} app uses client credentials and takes no redirect URIs`,
      );
    }
  }
  checkLogoUrl(c.logo_url);
  if (c.backchannel_logout_uri) checkLogoutUri(c.backchannel_logout_uri);
  if (c.claim_mappings) c.claim_mappings = checkClaimMappings(c.claim_mappings);
  const unknown = (c.allowed_scopes ?? []).filter((s) => !knownScopes.includes(s));
  if (unknown.length)
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      `unknown scope ${unknown.join(', ')}; known: ${knownScopes.join(', ')}`,
    );
  if (c.resource_server && app.public)
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      `a ${app.appType} app is public: it cannot authenticate at introspection, so it cannot be a resource server`,
    );
}

/** Back-Channel Logout 1.0 section 2.2: an absolute http(s) URL, without a fragment. Where it points is checked at each send. */
function checkLogoutUri(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new HttpError(400, 'VALIDATION_ERROR', 'backchannel_logout_uri must be an absolute http or https URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new HttpError(400, 'VALIDATION_ERROR', 'backchannel_logout_uri must be an absolute http or https URL');
  if (raw.includes('#'))
    throw new HttpError(400, 'VALIDATION_ERROR', 'backchannel_logout_uri must not have a fragment');
}

/**
 * Changes an app's settings, recorded in admin_changes with the values before and after (only the fields that
 * changed; nothing is written or recorded when none did). Its principal keeps its name and scopes in step.
 */
export async function updateApp(
  db: Database,
  id: string,
  changes: AppChanges,
  knownScopes: readonly string[],
  actor: Actor,
): Promise<AppRecord> {
  return db.transaction(async (tx) => {
    const row = await lockedApp(tx, id);
    const app = appFromRow(row);
    check(app, changes, knownScopes);
    const wanted = {
      ...changes,
      ...(changes.name !== undefined ? { name: changes.name.trim() } : {}),
      // Checked for its contrast before anything is written (400 with the ratio).
      ...(typeof changes.brand_color === 'string' ? { brand_color: checkBrandColor(changes.brand_color) } : {}),
    };
    const changed = COLUMNS.filter(
      (k) => wanted[k] !== undefined && JSON.stringify(wanted[k]) !== JSON.stringify(row[k] ?? null),
    );
    if (changed.length === 0) return app;
    const values: unknown[] = [id];
    const sets = changed.map((k) => {
      values.push(JSON_COLUMNS.has(k) ? JSON.stringify(wanted[k]) : wanted[k]);
      return `${k} = $${values.length}`;
    });
    const updated = appFromRow(
      (
        await tx.query<Record<string, unknown>>(
          `UPDATE oauth_apps SET ${sets.join(', ')}, updated_at = now() WHERE id = $1 RETURNING *`,
          values,
        )
      ).rows[0]!,
    );
    await tx.query('UPDATE principals SET display_name = $2, allowed_scopes = $3, updated_at = now() WHERE id = $1', [
      updated.principalId,
      updated.name,
      JSON.stringify(updated.allowedScopes),
    ]);
    await recordChange(tx, {
      actor,
      action: 'application.update',
      target: { type: 'application', id },
      before: Object.fromEntries(changed.map((k) => [k, row[k] ?? null])),
      after: Object.fromEntries(changed.map((k) => [k, wanted[k]])),
    });
    return updated;
  });
}

/**
 * Deactivates or reactivates an app (and its principal, as POST /principals/:id/deactivate does): a deactivated app's
 * client is unknown to the provider and its tokens stop counting. Recorded when the state changes.
 */
export async function setAppActive(db: Database, id: string, active: boolean, actor: Actor): Promise<AppRecord> {
  return db.transaction(async (tx) => {
    const app = appFromRow(await lockedApp(tx, id));
    if (app.active === active) return app;
    await applyPrincipalActive(tx, app.principalId, active);
    await recordChange(tx, {
      actor,
      action: active ? 'application.activate' : 'application.deactivate',
      target: { type: 'application', id },
      before: { active: app.active },
      after: { active },
    });
    return appFromRow(await lockedApp(tx, id));
  });
}

export interface Rotation {
  secret: SecretInfo & { secret: string };
  /** The app's other live secrets as they are now: revoked (0), expiring at the grace's end, or unchanged. */
  previous: SecretInfo[];
}

const SECRET_COLUMNS = `id, secret_prefix, ${isoUtc('created_at')} AS created_at, ${isoUtc('expires_at')} AS expires_at,
  ${isoUtc('last_used_at')} AS last_used_at, last_used_ip, revoked, ${isoUtc('revoked_at')} AS revoked_at, revoked_reason`;

/**
 * Rotates a confidential app's secret: a new one (answered once) and, with `previousExpireIn`, the others retired — at
 * once for 0 (revoked as `rotated`), else after that many seconds (an earlier expiry they had is kept), so the app's
 * deployments move to the new secret meanwhile. Without it the others are left as they are. Recorded.
 */
export async function rotateSecrets(
  db: Database,
  app: AppRecord,
  previousExpireIn: number | undefined,
  actor: Actor,
): Promise<Rotation> {
  if (app.public) throw new HttpError(400, 'VALIDATION_ERROR', `a ${app.appType} app is public and has no secrets`);
  return db.transaction(async (tx) => {
    await lockedApp(tx, app.id);
    const secret = await createSecret(tx, app.id);
    const others = `app_id = $1 AND id <> $2 AND NOT revoked AND (expires_at IS NULL OR expires_at > now())`;
    const previous =
      previousExpireIn === undefined
        ? await tx.query<SecretInfo>(`SELECT ${SECRET_COLUMNS} FROM oauth_app_secrets WHERE ${others}`, [
            app.id,
            secret.id,
          ])
        : previousExpireIn === 0
          ? await tx.query<SecretInfo>(
              `UPDATE oauth_app_secrets SET revoked = true, revoked_at = now(), revoked_reason = 'rotated' WHERE ${others}
               RETURNING ${SECRET_COLUMNS}`,
              [app.id, secret.id],
            )
          : await tx.query<SecretInfo>(
              `UPDATE oauth_app_secrets SET expires_at = least(coalesce(expires_at, 'infinity'), now() + make_interval(secs => $3))
                WHERE ${others} RETURNING ${SECRET_COLUMNS}`,
              [app.id, secret.id, previousExpireIn],
            );
    await recordChange(tx, {
      actor,
      action: 'application.secret_rotate',
      target: { type: 'application', id: app.id },
      before: { live_secrets: previous.rows.map((s) => s.secret_prefix) },
      after: {
        new_secret: secret.secret_prefix,
        previous: previous.rows.map((s) => ({ prefix: s.secret_prefix, revoked: s.revoked, expires_at: s.expires_at })),
      },
    });
    return { secret, previous: previous.rows };
  });
}
