import type { Queryable } from '../../kit/db.ts';

/** The mails asked for on pages whose answer must not tell whether an address has an account. */
export type MailKind = 'password_reset' | 'sign_in_code';

/** A request as the page stores it: who asked for what, never a secret (the token or code is made when it is handled). */
export interface NewMailRequest {
  kind: MailKind;
  /** Normalised (lower case). */
  email: string;
  /** The asking page's language. */
  lang: string;
  /** sign_in_code: the SHA-256 of the sign-in request's uid, which the code is bound to. */
  boundTo?: string | undefined;
}

/** A request claimed by a courier: `attempts` counts this claim, and settling it is conditional on it. */
export interface MailRequest extends NewMailRequest {
  id: string;
  boundTo: string | undefined;
  attempts: number;
}

/**
 * At most this many requests wait, across every instance: a flood past the throttles cannot grow the table without
 * bound. Counted in the same statement as the insert, whatever the address.
 */
export const MAX_WAITING = 1_000;

/**
 * Stores a request unless MAX_WAITING are already waiting; resolves with whether it was stored. One statement of one
 * cost for every address: nothing here reads the people.
 */
export async function storeMailRequest(db: Queryable, r: NewMailRequest): Promise<boolean> {
  const stored = await db.query(
    `INSERT INTO mail_requests (kind, email, lang, bound_to)
     SELECT $1::text, $2::text, $3::text, $4::text WHERE (SELECT count(*) FROM mail_requests) < $5::int`,
    [r.kind, r.email, r.lang, r.boundTo ?? null, MAX_WAITING],
  );
  return stored.rowCount === 1;
}

/** How long a request of each kind may wait, in seconds: the lifetime of the link or code it would bring. */
export type Lifetimes = Record<MailKind, number>;

const kindsAndLifetimes = (l: Lifetimes) => [Object.keys(l), Object.values(l)];

/**
 * Claims the request due first that is still within its lifetime, for `leaseSeconds` (SKIP LOCKED, so instances claim
 * side by side, and its next attempt pushed past the lease, so one that dies holding it leaves it to another).
 */
export async function claimMailRequest(
  db: Queryable,
  lifetimes: Lifetimes,
  leaseSeconds: number,
): Promise<MailRequest | undefined> {
  const claimed = await db.query<{
    id: string;
    kind: MailKind;
    email: string;
    lang: string;
    bound_to: string | null;
    attempts: number;
  }>(
    `UPDATE mail_requests SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $1)
      WHERE id = (SELECT r.id FROM mail_requests r JOIN unnest($2::text[], $3::int[]) AS k(kind, lifetime) ON k.kind = r.kind
                   WHERE r.next_attempt_at <= now() AND r.requested_at > now() - make_interval(secs => k.lifetime)
                   ORDER BY r.next_attempt_at, r.id LIMIT 1 FOR UPDATE OF r SKIP LOCKED)
      RETURNING id::text AS id, kind, email, lang, bound_to, attempts`,
    [leaseSeconds, ...kindsAndLifetimes(lifetimes)],
  );
  const row = claimed.rows[0];
  return (
    row && {
      id: row.id,
      kind: row.kind,
      email: row.email,
      lang: row.lang,
      boundTo: row.bound_to ?? undefined,
      attempts: row.attempts,
    }
  );
}

/** Removes the requests past their lifetime (never mailed late); answers how many of each kind went. */
export async function dropExpiredMailRequests(db: Queryable, lifetimes: Lifetimes): Promise<Map<MailKind, number>> {
  const dropped = await db.query<{ kind: MailKind }>(
    `DELETE FROM mail_requests r USING unnest($1::text[], $2::int[]) AS k(kind, lifetime)
      WHERE r.kind = k.kind AND r.requested_at <= now() - make_interval(secs => k.lifetime)
      RETURNING r.kind`,
    kindsAndLifetimes(lifetimes),
  );
  const counts = new Map<MailKind, number>();
  for (const { kind } of dropped.rows) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

// Conditional on the claim's attempt: a courier whose lease ran out (another claimed the request since) changes nothing.

/** Handled (mailed, or nobody to mail), or given up: the request goes. */
export async function removeMailRequest(db: Queryable, r: MailRequest): Promise<void> {
  await db.query('DELETE FROM mail_requests WHERE id = $1 AND attempts = $2', [r.id, r.attempts]);
}

/** Not handled this time: due again after `delayMs`. */
export async function retryMailRequest(db: Queryable, r: MailRequest, delayMs: number): Promise<void> {
  await db.query(
    'UPDATE mail_requests SET next_attempt_at = now() + make_interval(secs => $3) WHERE id = $1 AND attempts = $2',
    [r.id, r.attempts, delayMs / 1000],
  );
}
