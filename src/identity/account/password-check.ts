import type { FastifyRequest } from 'fastify';
import type { Database } from '../../kit/db.ts';
import { sha256Hex, verifySecret } from '../../kit/crypto.ts';
import type { Throttle } from '../../kit/throttle.ts';
import type { PrincipalView } from '../principals/view.ts';

/** The throttle keys of a password attempt: the same as the sign-in page's, so both forms count toward one limit. */
function throttleKeys(email: string, request: FastifyRequest): string[] {
  return [`account:${sha256Hex(email)}`, `address:${request.ip}`];
}

/** Whether `password` is the human's current (live, unexpired) password; failures count toward the sign-in slow-down. */
export async function verifyCurrentPassword(
  db: Database,
  throttle: Throttle,
  request: FastifyRequest,
  human: PrincipalView,
  password: string,
): Promise<{ ok: boolean; wait: number }> {
  const keys = throttleKeys(human.human!.email, request);
  const wait = await throttle.waitSeconds(keys);
  if (wait > 0) return { ok: false, wait };
  const stored = (
    await db.query<{ secret_hash: string }>(
      "SELECT secret_hash FROM credentials WHERE principal_id = $1 AND type = 'password' AND NOT revoked AND active AND (expires_at IS NULL OR expires_at > now())",
      [human.id],
    )
  ).rows[0]?.secret_hash;
  const ok = stored !== undefined && (await verifySecret(password, stored));
  if (!ok) await throttle.fail(keys);
  else await throttle.succeed(keys[0]!);
  return { ok, wait: 0 };
}
