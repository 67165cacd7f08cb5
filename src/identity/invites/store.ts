import type { Database, Queryable } from '../../kit/db.ts';
import { randomToken, sha256Hex } from '../../kit/crypto.ts';
import { HttpError } from '../../kit/errors.ts';
import { normaliseEmail } from '../principals/view.ts';

export const INVITE_STATUSES = ['pending', 'accepted', 'declined', 'expired', 'revoked'] as const;
export type InviteStatus = (typeof INVITE_STATUSES)[number];

export interface Invite {
  id: string;
  organization_id: string;
  email: string;
  role: string;
  status: InviteStatus;
  message: string | null;
  expires_at: string;
  accepted_at: string | null;
  accepted_by_principal_id: string | null;
  resend_count: number;
  last_sent_at: string | null;
  inviter_principal_id: string | null;
  created_at: string;
  updated_at: string;
}

const ts = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const COLUMNS = `id, organization_id, email, role, status, message, ${ts('expires_at')} AS expires_at, ${ts('accepted_at')} AS accepted_at,
  accepted_by_principal_id, resend_count, ${ts('last_sent_at')} AS last_sent_at, inviter_principal_id, ${ts('created_at')} AS created_at, ${ts('updated_at')} AS updated_at`;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const INVITE_TOKEN_PREFIX = 'inv_';

/** A pending invitation past its expiry is expired: the move is made when the invitation is next read or acted on. */
async function expireDue(db: Queryable, where: string, params: unknown[]): Promise<void> {
  await db.query(
    `UPDATE invites SET status = 'expired', updated_at = now() WHERE status = 'pending' AND expires_at <= now() AND ${where}`,
    params,
  );
}

function newToken(): { token: string; hash: string } {
  const token = `${INVITE_TOKEN_PREFIX}${randomToken(32)}`;
  return { token, hash: sha256Hex(token) };
}

export async function createInvite(
  db: Database,
  input: {
    organizationId: string;
    email: string;
    role: string;
    message?: string | undefined;
    ttlSeconds: number;
    inviterId?: string | undefined;
  },
): Promise<{ invite: Invite; token: string }> {
  const email = normaliseEmail(input.email);
  if (!EMAIL.test(email) || email.length > 320)
    throw new HttpError(400, 'VALIDATION_ERROR', 'email must be an email address');
  await expireDue(db, 'organization_id = $1 AND lower(email) = $2', [input.organizationId, email]);
  const { token, hash } = newToken();
  try {
    const r = await db.query<Invite>(
      `INSERT INTO invites (organization_id, email, role, token_hash, message, expires_at, last_sent_at, inviter_principal_id)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6), now(), $7) RETURNING ${COLUMNS}`,
      [input.organizationId, email, input.role, hash, input.message ?? null, input.ttlSeconds, input.inviterId ?? null],
    );
    return { invite: r.rows[0]!, token };
  } catch (err) {
    if ((err as { code?: string }).code === '23505')
      throw new HttpError(
        409,
        'CONFLICT',
        `${email} already has a pending invitation to this organization (resend or revoke it)`,
      );
    throw err;
  }
}

export async function findInvite(db: Queryable, organizationId: string, id: string): Promise<Invite | undefined> {
  await expireDue(db, 'id = $1', [id]);
  return (
    await db.query<Invite>(`SELECT ${COLUMNS} FROM invites WHERE organization_id = $1 AND id = $2`, [
      organizationId,
      id,
    ])
  ).rows[0];
}

export async function listInvites(
  db: Queryable,
  organizationId: string,
  page: { status?: InviteStatus | undefined; limit: number; after?: readonly [string, string] | undefined },
): Promise<(Invite & { position: [string, string] })[]> {
  await expireDue(db, 'organization_id = $1', [organizationId]);
  const r = await db.query<Invite & { sort_at: string }>(
    `SELECT ${COLUMNS}, created_at::text AS sort_at FROM invites
      WHERE organization_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::timestamptz IS NULL OR (created_at, id) > ($3::timestamptz, $4::uuid))
      ORDER BY invites.created_at, invites.id LIMIT $5`,
    [organizationId, page.status ?? null, page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit],
  );
  return r.rows.map(({ sort_at, ...i }) => ({ ...i, position: [sort_at, i.id] }));
}

function refuseMove(invite: Invite, to: string): never {
  throw new HttpError(409, 'CONFLICT', `the invitation is ${invite.status}; only a pending invitation can be ${to}`);
}

/** Re-issues a pending invitation: a new token (the old link stops working), a new expiry, one more resend. */
export async function resendInvite(
  db: Database,
  organizationId: string,
  id: string,
  ttlSeconds: number,
): Promise<{ invite: Invite; token: string } | undefined> {
  const current = await findInvite(db, organizationId, id);
  if (!current) return undefined;
  if (current.status !== 'pending') refuseMove(current, 'resent');
  const { token, hash } = newToken();
  const r = await db.query<Invite>(
    `UPDATE invites SET token_hash = $3, expires_at = now() + make_interval(secs => $4), resend_count = resend_count + 1, last_sent_at = now(), updated_at = now()
      WHERE organization_id = $1 AND id = $2 AND status = 'pending' RETURNING ${COLUMNS}`,
    [organizationId, id, hash, ttlSeconds],
  );
  if (!r.rows[0]) refuseMove((await findInvite(db, organizationId, id))!, 'resent');
  return { invite: r.rows[0], token };
}

export async function revokeInvite(db: Database, organizationId: string, id: string): Promise<Invite | undefined> {
  const current = await findInvite(db, organizationId, id);
  if (!current) return undefined;
  const r = await db.query<Invite>(
    `UPDATE invites SET status = 'revoked', updated_at = now() WHERE organization_id = $1 AND id = $2 AND status = 'pending' RETURNING ${COLUMNS}`,
    [organizationId, id],
  );
  if (!r.rows[0]) refuseMove((await findInvite(db, organizationId, id))!, 'revoked');
  return r.rows[0];
}

/** The invitation a token opens, locked for the transaction; expired on the way when due. 404 for a token that opens nothing. */
async function openByToken(tx: Queryable, token: string): Promise<Invite> {
  const hash = sha256Hex(token);
  await expireDue(tx, 'token_hash = $1', [hash]);
  const invite = (await tx.query<Invite>(`SELECT ${COLUMNS} FROM invites WHERE token_hash = $1 FOR UPDATE`, [hash]))
    .rows[0];
  if (!invite)
    throw new HttpError(404, 'NOT_FOUND', 'no invitation has this token (it may have been re-sent with a new one)');
  return invite;
}

export async function declineInvite(db: Database, token: string): Promise<Invite> {
  return db.transaction(async (tx) => {
    const invite = await openByToken(tx, token);
    if (invite.status !== 'pending') refuseMove(invite, 'declined');
    return (
      await tx.query<Invite>(
        `UPDATE invites SET status = 'declined', updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
        [invite.id],
      )
    ).rows[0]!;
  });
}

/**
 * Accepts an invitation for a signed-in principal: a human whose verified email is the invited one. The membership is
 * made (or reactivated with the invited role) in the same transaction that marks the invitation accepted.
 */
export async function acceptInvite(
  db: Database,
  token: string,
  principalId: string,
): Promise<{ invite: Invite; membershipId: string }> {
  return db.transaction(async (tx) => {
    const invite = await openByToken(tx, token);
    if (invite.status !== 'pending') refuseMove(invite, 'accepted');
    const human = (
      await tx.query<{ email: string; email_verified_at: Date | null }>(
        'SELECT email, email_verified_at FROM humans WHERE principal_id = $1',
        [principalId],
      )
    ).rows[0];
    if (!human || human.email_verified_at === null || normaliseEmail(human.email) !== normaliseEmail(invite.email)) {
      throw new HttpError(
        403,
        'FORBIDDEN',
        'this invitation is for another email address: sign in as the invited person (with a verified email)',
      );
    }
    const m = await tx.query<{ id: string }>(
      `INSERT INTO principal_memberships (organization_id, principal_id, role) VALUES ($1, $2, $3)
       ON CONFLICT (principal_id, organization_id) DO UPDATE SET active = true, role = EXCLUDED.role, updated_at = now() RETURNING id`,
      [invite.organization_id, principalId, invite.role],
    );
    const accepted = (
      await tx.query<Invite>(
        `UPDATE invites SET status = 'accepted', accepted_at = now(), accepted_by_principal_id = $2, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
        [invite.id, principalId],
      )
    ).rows[0]!;
    return { invite: accepted, membershipId: m.rows[0]!.id };
  });
}

/** The invitation a token opens, for showing it (expired on the way when due); undefined for a token that opens nothing. */
export async function findInviteByToken(db: Queryable, token: string): Promise<Invite | undefined> {
  if (!token.startsWith(INVITE_TOKEN_PREFIX) || token.length > 200) return undefined;
  const hash = sha256Hex(token);
  await expireDue(db, 'token_hash = $1', [hash]);
  return (await db.query<Invite>(`SELECT ${COLUMNS} FROM invites WHERE token_hash = $1`, [hash])).rows[0];
}
