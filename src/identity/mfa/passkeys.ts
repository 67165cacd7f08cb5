import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Database, Queryable } from '../../kit/db.ts';
import { CHALLENGE_TTL_SECONDS, consumeChallenge, newChallenge, type ChallengePurpose } from './challenges.ts';
import { recordChange } from '../events/record.ts';
import { secondFactorChange } from './factor-change.ts';
import { en } from '../web/i18n/en.ts';

/** Where passkeys are valid: the issuer's origin, and its host name as the relying party id. */
export interface RelyingParty {
  origin: string;
  id: string;
  name: string;
}

export function relyingParty(issuer: string): RelyingParty {
  const u = new URL(issuer);
  return { origin: u.origin, id: u.hostname, name: u.hostname };
}

/** The refusals a passkey answer can meet: keys of the catalogue's `passkeys` (web/i18n/). */
export type PasskeyRefusal =
  | 'missing'
  | 'unreadable'
  | 'expired'
  | 'notVerified'
  | 'alreadyRegistered'
  | 'notRegistered'
  | 'counter';

/** A refusal the page explains to the person in its language (`refusal`); the message is the English, for logs. */
export class PasskeyError extends Error {
  readonly status: number;
  readonly refusal: PasskeyRefusal;
  constructor(status: number, refusal: PasskeyRefusal) {
    super(en.passkeys[refusal]);
    this.status = status;
    this.refusal = refusal;
  }
}

export interface PasskeyView {
  id: string;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
}

// EdDSA, ES256, RS256: what authenticators use. Named explicitly because the library's default probes Node's
// experimental ML-DSA support, which prints an ExperimentalWarning on the server's stderr.
const ALGORITHMS = [-8, -7, -257];

const LIVE = "type = 'webauthn' AND active AND NOT revoked AND (expires_at IS NULL OR expires_at > now())";
const ts = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

export async function listPasskeys(db: Queryable, principalId: string): Promise<PasskeyView[]> {
  const r = await db.query<PasskeyView>(
    `SELECT id, name, ${ts('created_at')} AS created_at, ${ts('last_used_at')} AS last_used_at FROM credentials
      WHERE principal_id = $1 AND ${LIVE} ORDER BY credentials.created_at, credentials.id`,
    [principalId],
  );
  return r.rows;
}

export async function hasPasskey(db: Queryable, principalId: string): Promise<boolean> {
  return (await db.query(`SELECT 1 FROM credentials WHERE principal_id = $1 AND ${LIVE}`, [principalId])).rowCount > 0;
}

/** The user handle of a principal: its UUID's 16 bytes (no personal data in the authenticator). */
function userHandle(principalId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(principalId.replace(/-/g, ''), 'hex'));
}

function transportsOf(metadata: unknown): AuthenticatorTransport[] | undefined {
  const t = (metadata as { transports?: unknown } | null)?.transports;
  return Array.isArray(t) ? (t.filter((x) => typeof x === 'string') as AuthenticatorTransport[]) : undefined;
}

/** Options for registering a new passkey; its challenge is bound to the person's login session. */
export async function registrationOptions(
  db: Database,
  rp: RelyingParty,
  person: { id: string; name: string; displayName: string },
  binding: string,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await db.query<{ identifier: string; metadata: unknown }>(
    `SELECT identifier, metadata FROM credentials WHERE principal_id = $1 AND ${LIVE}`,
    [person.id],
  );
  const challenge = await newChallenge(db, 'register', binding, person.id);
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: person.name,
    userDisplayName: person.displayName,
    userID: userHandle(person.id),
    // As bytes: a string would be taken as UTF-8 text and encoded again, so the browser would sign another value.
    challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    attestationType: 'none',
    supportedAlgorithmIDs: ALGORITHMS,
    excludeCredentials: existing.rows.map((c) => ({ id: c.identifier, transports: transportsOf(c.metadata) })),
    // Discoverable, so the same passkey also signs in without an email (usernameless).
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
}

function parseJson<T>(raw: unknown): T {
  if (typeof raw !== 'string' || raw.length === 0) throw new PasskeyError(400, 'missing');
  try {
    const v = JSON.parse(raw) as unknown;
    if (
      !v ||
      typeof v !== 'object' ||
      typeof (v as { id?: unknown }).id !== 'string' ||
      typeof (v as { response?: unknown }).response !== 'object' ||
      (v as { response?: unknown }).response === null
    )
      throw new Error('shape');
    return v as T;
  } catch {
    throw new PasskeyError(400, 'unreadable');
  }
}

function challengeOf(response: { response: { clientDataJSON?: unknown } }): string {
  try {
    const raw = response.response.clientDataJSON;
    if (typeof raw !== 'string') throw new Error('no client data');
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { challenge?: unknown };
    if (typeof parsed.challenge !== 'string') throw new Error('no challenge');
    return parsed.challenge;
  } catch {
    throw new PasskeyError(400, 'unreadable');
  }
}

/** Verifies a registration answer and stores the passkey as a `webauthn` credential. */
export async function registerPasskey(
  db: Database,
  rp: RelyingParty,
  principalId: string,
  binding: string,
  rawResponse: unknown,
  name: string | undefined,
): Promise<PasskeyView> {
  const response = parseJson<RegistrationResponseJSON>(rawResponse);
  const challenge = challengeOf(response);
  const spent = await consumeChallenge(db, challenge, 'register', binding);
  if (!spent || spent.principalId !== principalId) throw new PasskeyError(400, 'expired');
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
      supportedAlgorithmIDs: ALGORITHMS,
    });
  } catch {
    throw new PasskeyError(400, 'notVerified');
  }
  if (!verified.verified) throw new PasskeyError(400, 'notVerified');
  const info = verified.registrationInfo;
  try {
    const r = await db.query<PasskeyView>(
      `INSERT INTO credentials (principal_id, type, identifier, webauthn_credential_id, webauthn_public_key, webauthn_aaguid, webauthn_sign_count, name, metadata)
       VALUES ($1, 'webauthn', $2, $3, $4, $5, $6, $7, $8)
       RETURNING id, name, ${ts('created_at')} AS created_at, ${ts('last_used_at')} AS last_used_at`,
      [
        principalId,
        info.credential.id,
        Buffer.from(info.credential.id, 'base64url'),
        Buffer.from(info.credential.publicKey),
        info.aaguid,
        info.credential.counter,
        name?.trim().slice(0, 100) || 'Passkey',
        JSON.stringify({
          transports: info.credential.transports ?? [],
          device_type: info.credentialDeviceType,
          backed_up: info.credentialBackedUp,
        }),
      ],
    );
    await recordChange(db, secondFactorChange('add', principalId, { type: 'passkey', id: r.rows[0]!.id }));
    return r.rows[0]!;
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new PasskeyError(409, 'alreadyRegistered');
    throw err;
  }
}

/**
 * Options for signing in with a passkey, bound to the interaction. For a second factor they name the
 * person's passkeys; for a sign-in they name none, so the browser offers its discoverable ones.
 */
export async function authenticationOptions(
  db: Database,
  rp: RelyingParty,
  purpose: Exclude<ChallengePurpose, 'register'>,
  binding: string,
  principalId: string | null,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const allow = principalId
    ? (
        await db.query<{ identifier: string; metadata: unknown }>(
          `SELECT identifier, metadata FROM credentials WHERE principal_id = $1 AND ${LIVE}`,
          [principalId],
        )
      ).rows
    : [];
  const challenge = await newChallenge(db, purpose, binding, principalId);
  return generateAuthenticationOptions({
    rpID: rp.id,
    // As bytes: a string would be taken as UTF-8 text and encoded again, so the browser would sign another value.
    challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    allowCredentials: allow.map((c) => ({ id: c.identifier, transports: transportsOf(c.metadata) })),
    // A passkey that signs in alone must prove the person (PIN, biometrics); as a second factor, presence is enough.
    userVerification: purpose === 'sign_in' ? 'required' : 'preferred',
  });
}

/**
 * Verifies a sign-in answer and returns the principal it proves. The signature counter must move
 * forward: an answer whose counter is not above the stored one (a cloned authenticator) is refused,
 * and the stored counter is advanced with a conditional update so two answers cannot both pass.
 */
export async function verifyPasskey(
  db: Database,
  rp: RelyingParty,
  purpose: Exclude<ChallengePurpose, 'register'>,
  binding: string,
  rawResponse: unknown,
  ip: string | undefined,
): Promise<string> {
  const response = parseJson<AuthenticationResponseJSON>(rawResponse);
  const challenge = challengeOf(response);
  const spent = await consumeChallenge(db, challenge, purpose, binding);
  if (!spent) throw new PasskeyError(400, 'expired');
  if (response.id.length > 1400) throw new PasskeyError(400, 'unreadable');
  const r = await db.query<{
    id: string;
    principal_id: string;
    webauthn_public_key: Buffer;
    webauthn_sign_count: string | number;
    metadata: unknown;
  }>(
    `SELECT id, principal_id, webauthn_public_key, webauthn_sign_count, metadata FROM credentials WHERE identifier = $1 AND ${LIVE}`,
    [response.id],
  );
  const row = r.rows[0];
  const refused = new PasskeyError(401, 'notRegistered');
  if (!row) throw refused;
  if (spent.principalId && spent.principalId !== row.principal_id) throw refused;
  // A discoverable credential's answer names its user: it must be the owner of the credential.
  const handle = response.response.userHandle;
  if (handle && Buffer.from(handle, 'base64url').toString('hex') !== row.principal_id.replace(/-/g, '')) throw refused;
  const stored = Number(row.webauthn_sign_count);
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: response.id,
        publicKey: new Uint8Array(row.webauthn_public_key),
        counter: stored,
        transports: transportsOf(row.metadata),
      },
      requireUserVerification: purpose === 'sign_in',
    });
  } catch (err) {
    if (/counter/i.test((err as Error).message)) throw new PasskeyError(401, 'counter');
    throw new PasskeyError(401, 'notVerified');
  }
  if (!verified.verified) throw new PasskeyError(401, 'notVerified');
  const next = verified.authenticationInfo.newCounter;
  const moved = await db.query(
    `UPDATE credentials SET webauthn_sign_count = $2, last_used_at = now(), last_used_ip = $3, updated_at = now()
      WHERE id = $1 AND (webauthn_sign_count < $2 OR ($2 = 0 AND webauthn_sign_count = 0))`,
    [row.id, next, ip ?? null],
  );
  if (moved.rowCount === 0) throw new PasskeyError(401, 'counter');
  return row.principal_id;
}

/** Removes one of the person's passkeys (revoked with a reason, kept on record). */
export async function removePasskey(db: Queryable, principalId: string, id: string, reason: string): Promise<boolean> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return false;
  const r = await db.query(
    `UPDATE credentials SET revoked = true, revoked_at = now(), revoked_reason = $3, updated_at = now()
      WHERE principal_id = $1 AND id = $2 AND ${LIVE}`,
    [principalId, id, reason],
  );
  if (r.rowCount === 0) return false;
  await recordChange(db, secondFactorChange('remove', principalId, { type: 'passkey', id, reason }));
  return true;
}
