import { flag, type Command } from '../../kit/cli-runner.ts';
import type { IdentityConfig } from '../config.ts';
import { rotateSigningKeys } from '../oidc/signing-keys.ts';
import { rotationOut } from '../signing-keys/rotation-out.ts';
import { recordAsRequest } from '../admin-log/command-record.ts';
import type { WithDatabase } from './with-database.ts';

/**
 * `platform identity keys rotate [--immediately]`: the API's `POST /signing-keys/rotate` from the command line, by the
 * same rule (`rotateSigningKeys`: staged, or at once with `immediately`), recorded in the rotation's transaction as
 * that request is (`signing-key.rotate`, its target the new key, `immediately` in its details when given).
 */
export function rotateKeysCommand(withDatabase: WithDatabase, config: IdentityConfig): Command {
  return {
    path: ['keys', 'rotate'],
    synopsis: '[--immediately]',
    summary: 'new signing key: published at once, it signs after IDENTITY_KEY_REFRESH_SECONDS',
    details: [
      "staged as POST /api/v1/signing-keys/rotate is: the new key is in every running server's JWKS before any signs with it; the old one signs until then and stays in the JWKS until what it signed expires",
      '--immediately: for a compromised key; the new key signs at once (each server as it reloads, within IDENTITY_KEY_REFRESH_SECONDS), and verifiers reject the tokens it signs until they fetch the JWKS again',
      'recorded in the change log (GET /api/v1/admin-log) with the actor "command"',
    ],
    options: { immediately: { type: 'boolean' } },
    run: ({ values, result }) =>
      withDatabase(async (db) => {
        const immediately = flag(values, 'immediately');
        const r = await rotateSigningKeys(db, config.secretKey, {
          refreshSeconds: config.keyRefreshSeconds,
          immediately,
          also: (tx, rotation) =>
            recordAsRequest(tx, {
              method: 'POST',
              route: '/signing-keys/rotate',
              body: immediately ? { immediately } : undefined,
              answer: { kid: rotation.kid },
            }),
        });
        const wait = `IDENTITY_KEY_REFRESH_SECONDS, ${config.keyRefreshSeconds} s`;
        result(rotationOut(r), [
          `new signing key ${r.kid}${r.retired.length ? `; retired ${r.retired.join(', ')} (published until what they signed expires)` : ''}`,
          ...(r.immediately
            ? [
                `it signs from now (${r.signsFrom}): each running server switches to it at its next reload (within ${wait})`,
                'verifiers may reject the tokens it signs until they fetch the JWKS again (a cached copy, or one from a server that has not reloaded yet)',
              ]
            : [
                `published at once; it signs from ${r.signsFrom} (in ${wait}), once every running server has reloaded and serves it in its JWKS`,
              ]),
        ]);
      }),
  };
}
