import type { Queryable } from '../../kit/db.ts';
import { recordChange } from './record.ts';

/**
 * A refused sign-in, on the record and to webhooks: the address typed (whether or not an account has it: the log is
 * for administrators, and an attack on an address that does not exist is worth seeing), what was wrong, and from where.
 * Throttling bounds how many one address can write.
 */
export async function recordSignInFailure(
  db: Queryable,
  who: string,
  reason: 'password' | 'second_factor',
  clientIp: string | undefined,
): Promise<void> {
  await recordChange(db, {
    actor: { kind: 'anonymous' },
    action: 'signin.fail',
    target: { type: reason === 'password' ? 'email' : 'principal', id: who },
    before: null,
    after: { reason },
    clientIp,
  });
}
