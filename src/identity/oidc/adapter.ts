import { errors } from 'oidc-provider';
import type { Database } from '../../kit/db.ts';
import { openSealedString, seal, sha256Hex } from '../../kit/crypto.ts';
import type { ClientStore } from './clients.ts';
import { OpenedPayloads } from './opened-payloads.ts';
import { TokenLookup } from './token-lookup.ts';
import { TokenWriter, type AccessTokenCommit, type TokenValues } from './token-writer.ts';

/** What oidc-provider stores through its adapter: a JSON object with its own fields. */
export type Payload = Record<string, unknown> & {
  grantId?: string;
  uid?: string;
  userCode?: string;
  exp?: number;
  consumed?: unknown;
  jti?: string;
};

/** The provider's storage contract (oidc-provider "Adapter"). */
export interface ProviderAdapter {
  upsert(id: string, payload: Payload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Payload | undefined>;
  findByUid(uid: string): Promise<Payload | undefined>;
  findByUserCode(userCode: string): Promise<Payload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/** Where the request that caused a write came from, for the tokens' client_ip and user_agent. */
export type RequestOrigin = () => { ip: string | undefined; userAgent: string | undefined };

interface Context {
  db: Database;
  secretKey: Buffer;
  clients: ClientStore;
  accessTokenCommit: AccessTokenCommit;
  origin: RequestOrigin;
  /** The SHA-256 of the login cookie the request that saves a provider session carries (back-channel-logout.ts). */
  loginHash: () => string | undefined;
}

const TOKEN_KIND: Record<string, string> = {
  AccessToken: 'access_token',
  ClientCredentials: 'client_credentials',
  RefreshToken: 'refresh_token',
};

function expiry(expiresIn: number | undefined): Date | null {
  return expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
}

function scopesOf(payload: Payload): string[] {
  return typeof payload.scope === 'string' && payload.scope ? payload.scope.split(' ') : [];
}

function audienceOf(payload: Payload): string[] {
  const aud = payload.aud;
  return Array.isArray(aud) ? aud.map(String) : typeof aud === 'string' ? [aud] : [];
}

/**
 * Every artifact is keyed by the SHA-256 of its id: the value a client or browser holds is never
 * stored in clear, and not inside the payload either (the `jti` is removed before sealing and put back on read), but
 * for a device code's (sealPayload). The
 * payload itself is sealed with PLATFORM_SECRET_KEY, bound to the model and the id's hash.
 */
abstract class HashedAdapter implements ProviderAdapter {
  protected readonly ctx: Context;
  protected readonly model: string;
  /** Payloads that never change once saved (tokens) keep their last openings here. */
  protected readonly opened: OpenedPayloads | undefined;
  constructor(model: string, ctx: Context) {
    this.model = model;
    this.ctx = ctx;
  }
  protected sealPayload(idHash: string, payload: Payload): string {
    // One exception: a device code (RFC 8628, ten minutes) is found by the user code the person types, and the provider
    // then saves it back under its id, so its id stays inside the sealed payload (encrypted, never in clear).
    const { jti, ...rest } = payload;
    const kept = this.model === 'DeviceCode' ? { ...rest, jti } : rest;
    return seal(this.ctx.secretKey, JSON.stringify(kept), `identity.oidc.${this.model}.${idHash}`);
  }
  protected openPayload(id: string, idHash: string, sealed: string, consumedAt: string | null): Payload {
    const context = `identity.oidc.${this.model}.${idHash}`;
    const plaintext = this.opened
      ? this.opened.open(this.ctx.secretKey, sealed, context)
      : openSealedString(this.ctx.secretKey, sealed, context);
    const payload = JSON.parse(plaintext) as Payload;
    payload.jti = id;
    if (consumedAt) payload.consumed = Math.floor(new Date(consumedAt).getTime() / 1000);
    return payload;
  }
  abstract upsert(id: string, payload: Payload, expiresIn?: number): Promise<void>;
  abstract find(id: string): Promise<Payload | undefined>;
  abstract consume(id: string): Promise<void>;
  abstract destroy(id: string): Promise<void>;
  abstract revokeByGrantId(grantId: string): Promise<void>;
  async findByUid(_uid: string): Promise<Payload | undefined> {
    return undefined;
  }
  async findByUserCode(_userCode: string): Promise<Payload | undefined> {
    return undefined;
  }
}

// The provider looks one presented value up as several kinds at once (AccessToken and ClientCredentials at introspection):
// the last value's hash is kept for the next kind's find of it.
let lastId = '';
let lastHash = '';
function signatureOf(id: string): string {
  if (id !== lastId) {
    lastHash = sha256Hex(id);
    lastId = id;
  }
  return lastHash;
}

/** AccessToken, ClientCredentials and RefreshToken: rows of oauth_tokens. */
class TokenAdapter extends HashedAdapter {
  // The provider looks a presented token up as several kinds at once (introspection, revocation): the
  // lookup answers them, and other requests' lookups, with one query.
  private readonly lookup: TokenLookup;
  private readonly writer: TokenWriter;
  protected override readonly opened = new OpenedPayloads();
  constructor(model: string, ctx: Context, lookup: TokenLookup, writer: TokenWriter) {
    super(model, ctx);
    this.lookup = lookup;
    this.writer = writer;
  }

  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    const hash = sha256Hex(id);
    const kind = TOKEN_KIND[this.model]!;
    const refresh = kind === 'refresh_token';
    const clientId = String(payload.clientId);
    const app = await this.ctx.clients.appRef(clientId);
    const origin = this.ctx.origin();
    const accountId = typeof payload.accountId === 'string' ? payload.accountId : null;
    const grantHash = payload.grantId ? sha256Hex(payload.grantId) : null;
    const expires = expiry(expiresIn);
    const values: TokenValues = [
      kind,
      refresh ? null : hash,
      refresh ? hash : null,
      grantHash,
      JSON.stringify(scopesOf(payload)),
      JSON.stringify(audienceOf(payload)),
      typeof payload.sessionUid === 'string' ? sha256Hex(payload.sessionUid) : null,
      refresh ? null : expires,
      refresh ? expires : null,
      origin.ip ?? null,
      origin.userAgent ?? null,
      accountId,
      accountId ?? app?.principalId ?? null,
      clientId,
      app?.id ?? null,
      this.sealPayload(hash, payload),
      typeof payload.jkt === 'string' ? payload.jkt : null,
    ];
    await this.writer.write(refresh ? 'refresh_token_signature' : 'access_token_signature', values);
  }

  async find(id: string): Promise<Payload | undefined> {
    const hash = signatureOf(id);
    const row = await this.lookup.find(hash, this.model === 'RefreshToken' ? 'refresh' : 'access');
    if (!row || row.revoked || row.kind !== TOKEN_KIND[this.model]) return undefined;
    return this.openPayload(id, hash, row.payload, row.consumed_at);
  }

  async consume(id: string): Promise<void> {
    const hash = sha256Hex(id);
    await consumeOnce(
      this.ctx.db,
      'UPDATE oauth_tokens SET consumed_at = now(), last_used_at = now() WHERE (access_token_signature = $1 OR refresh_token_signature = $1) AND consumed_at IS NULL RETURNING grant_hash',
      hash,
      'refresh token',
    );
  }

  async destroy(id: string): Promise<void> {
    const hash = sha256Hex(id);
    await this.ctx.db.query(
      `UPDATE oauth_tokens SET revoked = true, revoked_at = now(), revoked_reason = coalesce(revoked_reason, 'revoked')
        WHERE (access_token_signature = $1 OR refresh_token_signature = $1) AND NOT revoked`,
      [hash],
    );
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.ctx.db.query(
      `UPDATE oauth_tokens SET revoked = true, revoked_at = now(), revoked_reason = 'grant_revoked'
        WHERE grant_hash = $1 AND kind = $2 AND NOT revoked`,
      [sha256Hex(grantId), TOKEN_KIND[this.model]],
    );
  }
}

/**
 * The provider reads a code or refresh token, checks it is unused, then consumes it: two requests
 * presenting the same one at once would both pass the check. Consuming is therefore one conditional
 * UPDATE; the request that finds it already consumed is a replay, so the whole grant family goes
 * (tokens, codes and the grant itself, which the provider checks on every later use of the family's tokens).
 */
async function consumeOnce(db: Database, update: string, signature: string, what: string): Promise<void> {
  const r = await db.query<{ grant_hash: string | null }>(update, [signature]);
  if (r.rowCount > 0) return;
  const found = await db.query<{ grant_hash: string | null }>(
    `SELECT grant_hash FROM oauth_tokens WHERE access_token_signature = $1 OR refresh_token_signature = $1
     UNION ALL SELECT grant_hash FROM oauth_auth_codes WHERE code_signature = $1`,
    [signature],
  );
  const grantHash = found.rows[0]?.grant_hash;
  if (grantHash) await revokeFamily(db, grantHash, 'reuse_detected');
  throw new errors.InvalidGrant(`${what} already used`);
}

export async function revokeFamily(db: Database, grantHash: string, reason: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(
      `UPDATE oauth_tokens SET revoked = true, revoked_at = now(), revoked_reason = $2 WHERE grant_hash = $1 AND NOT revoked`,
      [grantHash, reason],
    );
    await tx.query('UPDATE oauth_auth_codes SET revoked = true WHERE grant_hash = $1', [grantHash]);
    await tx.query('DELETE FROM oauth_grants WHERE grant_hash = $1', [grantHash]);
  });
}

/** AuthorizationCode: rows of oauth_auth_codes. */
class CodeAdapter extends HashedAdapter {
  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    const hash = sha256Hex(id);
    const clientId = String(payload.clientId);
    const app = await this.ctx.clients.appRef(clientId);
    const origin = this.ctx.origin();
    await this.ctx.db.query(
      `INSERT INTO oauth_auth_codes (code_signature, grant_hash, subject, code_challenge, code_challenge_method, redirect_uri, scopes,
         expires_at, client_ip, user_agent, client_id, app_id, payload)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (code_signature) DO UPDATE SET payload = EXCLUDED.payload`,
      [
        hash,
        payload.grantId ? sha256Hex(payload.grantId) : null,
        payload.accountId ?? null,
        payload.codeChallenge ?? null,
        payload.codeChallengeMethod ?? null,
        String(payload.redirectUri ?? ''),
        JSON.stringify(scopesOf(payload)),
        expiry(expiresIn ?? 600),
        origin.ip ?? null,
        origin.userAgent ?? null,
        clientId,
        app?.id ?? null,
        this.sealPayload(hash, payload),
      ],
    );
  }
  async find(id: string): Promise<Payload | undefined> {
    const hash = sha256Hex(id);
    const r = await this.ctx.db.query<{ payload: string; used_at: string | null; revoked: boolean }>(
      'SELECT payload, used_at::text AS used_at, revoked FROM oauth_auth_codes WHERE code_signature = $1',
      [hash],
    );
    const row = r.rows[0];
    if (!row || row.revoked) return undefined;
    return this.openPayload(id, hash, row.payload, row.used_at);
  }
  async consume(id: string): Promise<void> {
    await consumeOnce(
      this.ctx.db,
      'UPDATE oauth_auth_codes SET used = true, used_at = now() WHERE code_signature = $1 AND NOT used RETURNING grant_hash',
      sha256Hex(id),
      'authorization code',
    );
  }
  async destroy(id: string): Promise<void> {
    await this.ctx.db.query('UPDATE oauth_auth_codes SET revoked = true WHERE code_signature = $1', [sha256Hex(id)]);
  }
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.ctx.db.query('UPDATE oauth_auth_codes SET revoked = true WHERE grant_hash = $1', [sha256Hex(grantId)]);
  }
}

/** Grant: rows of oauth_grants, the refresh-token family. */
class GrantAdapter extends HashedAdapter {
  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    const hash = sha256Hex(id);
    await this.ctx.db.query(
      `INSERT INTO oauth_grants (grant_hash, client_id, account_id, payload, expires_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (grant_hash) DO UPDATE SET payload = EXCLUDED.payload, expires_at = EXCLUDED.expires_at`,
      [hash, String(payload.clientId), payload.accountId ?? null, this.sealPayload(hash, payload), expiry(expiresIn)],
    );
  }
  async find(id: string): Promise<Payload | undefined> {
    const hash = sha256Hex(id);
    const r = await this.ctx.db.query<{ payload: string }>('SELECT payload FROM oauth_grants WHERE grant_hash = $1', [
      hash,
    ]);
    const row = r.rows[0];
    return row ? this.openPayload(id, hash, row.payload, null) : undefined;
  }
  async consume(): Promise<void> {}
  async destroy(id: string): Promise<void> {
    await this.ctx.db.query('DELETE FROM oauth_grants WHERE grant_hash = $1', [sha256Hex(id)]);
  }
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.destroy(grantId);
  }
}

/**
 * The second key of an artifact row (`uid_hash`): a session's uid, or a device code's user code (RFC 8628), which the
 * person types and the provider looks the code up by. Prefixed so the two can never meet.
 */
function lookupKey(payload: Payload): string | null {
  if (typeof payload.uid === 'string') return sha256Hex(payload.uid);
  if (typeof payload.userCode === 'string') return sha256Hex(`user_code:${payload.userCode}`);
  return null;
}

/** Everything else the provider keeps (its session, interactions, device codes, replay detection): oidc_artifacts. */
class ArtifactAdapter extends HashedAdapter {
  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    const hash = sha256Hex(id);
    // A browser session is linked to its person and to the login session it was made under, so that session's end can
    // log its apps out (migration 022); a later save made without the login cookie keeps the link it had.
    const session = this.model === 'Session';
    await this.ctx.db.query(
      `INSERT INTO oidc_artifacts (model, id_hash, uid_hash, grant_hash, payload, expires_at, account_id, login_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (model, id_hash) DO UPDATE SET uid_hash = EXCLUDED.uid_hash, grant_hash = EXCLUDED.grant_hash,
         payload = EXCLUDED.payload, expires_at = EXCLUDED.expires_at, account_id = EXCLUDED.account_id,
         login_hash = coalesce(EXCLUDED.login_hash, oidc_artifacts.login_hash)`,
      [
        this.model,
        hash,
        lookupKey(payload),
        payload.grantId ? sha256Hex(payload.grantId) : null,
        this.sealPayload(hash, payload),
        expiry(expiresIn),
        session && typeof payload.accountId === 'string' ? payload.accountId : null,
        session ? (this.ctx.loginHash() ?? null) : null,
      ],
    );
  }
  async find(id: string): Promise<Payload | undefined> {
    const hash = sha256Hex(id);
    const r = await this.ctx.db.query<{ payload: string; consumed_at: string | null }>(
      'SELECT payload, consumed_at::text AS consumed_at FROM oidc_artifacts WHERE model = $1 AND id_hash = $2',
      [this.model, hash],
    );
    const row = r.rows[0];
    return row ? this.openPayload(id, hash, row.payload, row.consumed_at) : undefined;
  }
  override findByUid(uid: string): Promise<Payload | undefined> {
    return this.findByLookupKey(sha256Hex(uid));
  }
  override findByUserCode(userCode: string): Promise<Payload | undefined> {
    return this.findByLookupKey(sha256Hex(`user_code:${userCode}`));
  }
  private async findByLookupKey(key: string): Promise<Payload | undefined> {
    // The payload is sealed against the id's hash, which the row keeps, so it opens without the id; the
    // provider only reads the account from a session found this way, never its id.
    const r = await this.ctx.db.query<{ id_hash: string; payload: string; consumed_at: string | null }>(
      'SELECT id_hash, payload, consumed_at::text AS consumed_at FROM oidc_artifacts WHERE model = $1 AND uid_hash = $2',
      [this.model, key],
    );
    const row = r.rows[0];
    if (!row) return undefined;
    const payload = JSON.parse(
      openSealedString(this.ctx.secretKey, row.payload, `identity.oidc.${this.model}.${row.id_hash}`),
    ) as Payload;
    if (row.consumed_at) payload.consumed = Math.floor(new Date(row.consumed_at).getTime() / 1000);
    return payload;
  }
  async consume(id: string): Promise<void> {
    await this.ctx.db.query('UPDATE oidc_artifacts SET consumed_at = now() WHERE model = $1 AND id_hash = $2', [
      this.model,
      sha256Hex(id),
    ]);
  }
  async destroy(id: string): Promise<void> {
    await this.ctx.db.query('DELETE FROM oidc_artifacts WHERE model = $1 AND id_hash = $2', [
      this.model,
      sha256Hex(id),
    ]);
  }
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.ctx.db.query('DELETE FROM oidc_artifacts WHERE model = $1 AND grant_hash = $2', [
      this.model,
      sha256Hex(grantId),
    ]);
  }
}

/** Clients come from oauth_apps; the provider never writes them (dynamic registration is off). */
class ClientAdapter implements ProviderAdapter {
  private readonly clients: ClientStore;
  constructor(clients: ClientStore) {
    this.clients = clients;
  }
  async upsert(): Promise<void> {
    throw new Error('clients are managed through the management API, not the provider');
  }
  find(id: string): Promise<Payload | undefined> {
    return this.clients.metadata(id) as Promise<Payload | undefined>;
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}

/** The adapter factory handed to oidc-provider: one adapter per model name. */
export function adapterFactory(ctx: Context): (model: string) => ProviderAdapter {
  const lookup = new TokenLookup(ctx.db);
  const writer = new TokenWriter(ctx.db, undefined, undefined, ctx.accessTokenCommit);
  return (model: string) => {
    if (model === 'Client') return new ClientAdapter(ctx.clients);
    if (model in TOKEN_KIND) return new TokenAdapter(model, ctx, lookup, writer);
    if (model === 'AuthorizationCode') return new CodeAdapter(model, ctx);
    if (model === 'Grant') return new GrantAdapter(model, ctx);
    return new ArtifactAdapter(model, ctx);
  };
}
