import type { Database } from '../../kit/db.ts';
import { createCache, type Cache } from '../../kit/cache.ts';
import type { InvalidationBus } from '../../kit/invalidation.ts';
import { sha256Hex } from '../../kit/crypto.ts';
import { appFromRow, type AppRecord } from '../apps/record.ts';
import { CREDENTIAL_GRANTS } from './protocol.ts';
import { LastUseWrites } from '../last-use.ts';

interface CachedApp {
  app: AppRecord | undefined;
  secrets: { id: string; hash: string; expiresAt: number | null }[];
  /** The live public keys of the app's principal, as JWKs: what its client assertions may be signed with (private_key_jwt). */
  keys: Record<string, unknown>[];
}

/** The live public keys of an app's principal, as JWKs with kid, alg and use. */
export type PublicKeys = (principalId: string) => Promise<Record<string, unknown>[]>;

/** Not a secret: oidc-provider wants a client_secret on confidential clients; the real ones are checked by hash (see compareClientSecret). */
export const SECRET_PLACEHOLDER = 'stored-as-sha256-in-oauth_app_secrets';

/**
 * Reads OAuth clients from oauth_apps for the provider, with a short in-memory cache so the token and
 * introspection endpoints do not query the app and its secrets on every request. A change (a revoked
 * secret, a deactivated app) invalidates it at once on this instance, and on every instance through
 * the bus when Redis is configured; otherwise other instances see it within `ttlMs`.
 */
export class ClientStore {
  private readonly db: Database;
  private readonly cache: Cache<CachedApp>;
  private readonly secretUse = new LastUseWrites();
  private readonly publicKeys: PublicKeys;

  /** `publicKeys`: an app principal's registered keys (credentials/client-keys.ts); none when left out. */
  constructor(db: Database, ttlMs = 5_000, bus?: InvalidationBus, publicKeys: PublicKeys = async () => []) {
    this.db = db;
    this.publicKeys = publicKeys;
    this.cache = createCache({
      name: 'apps',
      load: (clientId) => this.fetch(clientId),
      ttlMs,
      maxEntries: 10_000,
      bus,
    });
  }

  invalidate(clientId?: string): void {
    this.cache.invalidate(clientId);
  }

  private load(clientId: string): Promise<CachedApp> {
    return this.cache.get(clientId);
  }

  private async fetch(clientId: string): Promise<CachedApp> {
    // No app has a NUL in its client_id, and PostgreSQL would refuse the query (a 500 at the token endpoint or the
    // authorization endpoint, which read client_id from bodies and headers Fastify does not see).
    if (clientId.includes('\u0000')) return { app: undefined, secrets: [], keys: [] };
    const apps = await this.db.query<Record<string, unknown>>('SELECT * FROM oauth_apps WHERE client_id = $1', [
      clientId,
    ]);
    const row = apps.rows[0];
    const app = row ? appFromRow(row) : undefined;
    const secrets = app
      ? (
          await this.db.query<{ id: string; secret_hash: string; expires_at: Date | string | null }>(
            'SELECT id, secret_hash, expires_at FROM oauth_app_secrets WHERE app_id = $1 AND NOT revoked',
            [app.id],
          )
        ).rows.map((s) => ({
          id: s.id,
          hash: s.secret_hash,
          expiresAt: s.expires_at ? new Date(s.expires_at).getTime() : null,
        }))
      : [];
    return { app, secrets, keys: app && !app.public ? await this.publicKeys(app.principalId) : [] };
  }

  async app(clientId: string): Promise<AppRecord | undefined> {
    return (await this.load(clientId)).app;
  }

  async appRef(clientId: string): Promise<{ id: string; principalId: string } | undefined> {
    const app = await this.app(clientId);
    return app ? { id: app.id, principalId: app.principalId } : undefined;
  }

  /** The app as oidc-provider client metadata, or undefined when unknown or deactivated. */
  async metadata(clientId: string): Promise<Record<string, unknown> | undefined> {
    const { app, keys } = await this.load(clientId);
    if (!app?.active) return undefined;
    return clientMetadata(app, keys);
  }

  /** Whether `secret` is one of the app's live secrets: compared by SHA-256, the only form stored. */
  async verifySecret(clientId: string, secret: string | undefined, ip?: string): Promise<boolean> {
    if (typeof secret !== 'string' || secret.length === 0 || secret.length > 512) return false;
    const { secrets } = await this.load(clientId);
    const hash = sha256Hex(secret);
    const now = Date.now();
    // Each candidate is a hash of a 256-bit random value: comparing hashes leaks nothing useful about the secret.
    const match = secrets.find((s) => s.hash === hash && (s.expiresAt === null || s.expiresAt > now));
    if (!match) return false;
    this.noteSecretUse(match.id, now, ip);
    return true;
  }

  // last_used_at is written at most once a minute per secret (last-use.ts), off the request's path.
  private noteSecretUse(secretId: string, now: number, ip: string | undefined): void {
    if (!this.secretUse.due(secretId, now)) return;
    this.db
      .query('UPDATE oauth_app_secrets SET last_used_at = now(), last_used_ip = $2 WHERE id = $1', [
        secretId,
        ip ?? null,
      ])
      .catch(() => {});
  }
}

/** Extra client properties the provider carries on each client, read by the TTL and rotation hooks. */
export const EXTRA_CLIENT_PROPERTIES = [
  'access_token_ttl',
  'refresh_token_ttl',
  'authorization_code_ttl',
  'refresh_token_rotation',
  'first_party',
  'app_type',
  'principal_id',
  'email_code_sign_in',
  'brand_color',
  'logo_url',
] as const;

function clientMetadata(app: AppRecord, keys: Record<string, unknown>[]): Record<string, unknown> {
  const browserBased = app.allowedGrants.includes('authorization_code');
  return {
    client_id: app.clientId,
    client_name: app.name,
    ...(app.public
      ? { token_endpoint_auth_method: 'none' }
      : { token_endpoint_auth_method: 'client_secret_basic', client_secret: SECRET_PLACEHOLDER }),
    // An app that may use client credentials may also exchange a principal's API key or key-pair assertion for a token.
    grant_types: app.allowedGrants.includes('client_credentials')
      ? [...app.allowedGrants, ...CREDENTIAL_GRANTS]
      : app.allowedGrants,
    response_types: browserBased ? app.allowedResponseTypes : [],
    redirect_uris: browserBased ? app.redirectUris : [],
    application_type: app.appType === 'native' ? 'native' : 'web',
    ...(app.allowedScopes.length ? { scope: app.allowedScopes.join(' ') } : {}),
    id_token_signed_response_alg: 'RS256',
    access_token_ttl: app.accessTokenTtl,
    refresh_token_ttl: app.refreshTokenTtl,
    authorization_code_ttl: app.authorizationCodeTtl,
    refresh_token_rotation: app.refreshTokenRotation,
    first_party: app.firstParty,
    app_type: app.appType,
    principal_id: app.principalId,
    email_code_sign_in: app.emailCodeSignIn,
    ...(app.brandColor ? { brand_color: app.brandColor } : {}),
    ...(app.logoUrl ? { logo_url: app.logoUrl } : {}),
    dpop_bound_access_tokens: app.dpopBoundAccessTokens,
    ...(app.backchannelLogoutUri
      ? {
          backchannel_logout_uri: app.backchannelLogoutUri,
          backchannel_logout_session_required: app.backchannelLogoutSessionRequired,
        }
      : {}),
    // Its registered keys: a request carrying a client assertion authenticates with private_key_jwt (client-assertions.ts).
    ...(keys.length ? { jwks: { keys } } : {}),
  };
}
