import type { FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import { sha256Hex, verifySecret } from '../../kit/crypto.ts';
import type { Throttle } from '../../kit/throttle.ts';
import { checkPassword } from '../principals/store.ts';
import type { PrincipalView } from '../principals/view.ts';

/** A sign-in's result: the person, or a refusal (wait > 0 while slowed down, 0 for a wrong email or password). */
export type PasswordOutcome = { ok: true; human: PrincipalView } | { ok: false; wait: number };

/** The throttle keys of a password attempt: the same as the authorization sign-in's, so every form counts toward one limit. */
function throttleKeys(email: string, request: FastifyRequest): string[] {
  return [`account:${sha256Hex(email)}`, `address:${request.ip}`];
}

/**
 * A password sign-in outside an authorization request, with the interaction sign-in's rules: the shared failure
 * slow-down per account and address, one scrypt verification whether or not the account exists.
 */
export async function signInWithPassword(db: Database, throttle: Throttle, request: FastifyRequest, email: string, password: string): Promise<PasswordOutcome> {
  const keys = throttleKeys(email, request);
  const wait = await throttle.waitSeconds(keys);
  if (wait > 0) return { ok: false, wait };
  const human = await checkPassword(db, email, password, request.ip);
  if (!human) {
    await throttle.fail(keys);
    return { ok: false, wait: 0 };
  }
  await throttle.succeed(keys[0]!);
  return { ok: true, human };
}

/** Whether `password` is the human's current (live, unexpired) password; failures count toward the sign-in slow-down. */
export async function verifyCurrentPassword(db: Database, throttle: Throttle, request: FastifyRequest, human: PrincipalView, password: string): Promise<{ ok: boolean; wait: number }> {
  const keys = throttleKeys(human.human!.email, request);
  const wait = await throttle.waitSeconds(keys);
  if (wait > 0) return { ok: false, wait };
  const stored = (await db.query<{ secret_hash: string }>(
    "SELECT secret_hash FROM credentials WHERE principal_id = $1 AND type = 'password' AND NOT revoked AND active AND (expires_at IS NULL OR expires_at > now())",
    [human.id],
  )).rows[0]?.secret_hash;
  const ok = stored !== undefined && (await verifySecret(password, stored));
  if (!ok) await throttle.fail(keys);
  else await throttle.succeed(keys[0]!);
  return { ok, wait: 0 };
}
