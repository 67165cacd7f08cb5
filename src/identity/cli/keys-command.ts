import type { Command } from '../../kit/cli-runner.ts';
import type { IdentityConfig } from '../config.ts';
import { rotateSigningKeys } from '../oidc/signing-keys.ts';
import type { WithDatabase } from './with-database.ts';

/** `platform identity keys rotate`: a new signing key from now on. */
export function rotateKeysCommand(withDatabase: WithDatabase, config: IdentityConfig): Command {
  return {
    path: ['keys', 'rotate'],
    synopsis: '',
    summary: 'new signing key signs from now on; the old one stays in the JWKS until what it signed expires',
    run: ({ result }) =>
      withDatabase(async (db) => {
        const r = await rotateSigningKeys(db, config.secretKey);
        result({ kid: r.kid, retired: r.retired }, [
          `new signing key ${r.kid}${r.retired.length ? `; retired ${r.retired.join(', ')} (published until what they signed expires)` : ''}`,
          'running servers pick it up within IDENTITY_KEY_REFRESH_SECONDS',
        ]);
      }),
  };
}
