import type { Command } from '../../kit/cli-runner.ts';
import type { IdentityConfig } from '../config.ts';
import { rotateSigningKeys } from '../oidc/signing-keys.ts';
import { recordAsRequest } from '../admin-log/command-record.ts';
import type { WithDatabase } from './with-database.ts';

/**
 * `platform identity keys rotate`: a new signing key from now on, recorded in the rotation's transaction as the API's
 * `POST /signing-keys/rotate` is (`signing-key.rotate`, its target the new key).
 */
export function rotateKeysCommand(withDatabase: WithDatabase, config: IdentityConfig): Command {
  return {
    path: ['keys', 'rotate'],
    synopsis: '',
    summary: 'new signing key signs from now on; the old one stays in the JWKS until what it signed expires',
    details: ['recorded in the change log (GET /api/v1/admin-log) with the actor "command"'],
    run: ({ result }) =>
      withDatabase(async (db) => {
        const r = await rotateSigningKeys(db, config.secretKey, {
          also: (tx, rotation) =>
            recordAsRequest(tx, { method: 'POST', route: '/signing-keys/rotate', answer: { kid: rotation.kid } }),
        });
        result({ kid: r.kid, retired: r.retired }, [
          `new signing key ${r.kid}${r.retired.length ? `; retired ${r.retired.join(', ')} (published until what they signed expires)` : ''}`,
          'running servers pick it up within IDENTITY_KEY_REFRESH_SECONDS',
        ]);
      }),
  };
}
