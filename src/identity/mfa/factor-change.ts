import type { Change } from '../events/record.ts';

/** A person's own second factor added or removed, as the change log and its webhooks see it. */
export function secondFactorChange(
  verb: 'add' | 'remove',
  principalId: string,
  factor: { type: 'totp' | 'passkey'; id: string; reason?: string },
): Change {
  return {
    actor: { kind: 'person', id: principalId },
    action: `second_factor.${verb}`,
    target: { type: 'principal', id: principalId },
    before: verb === 'remove' ? { factor } : null,
    after: verb === 'add' ? { factor } : null,
  };
}
