import { jwtKeys } from '../../src/dashboard/auth/jwt.ts';
import { openDatabase } from '../../src/kit/db.ts';
import { renderCredential } from '../../src/dashboard/render/credential.ts';
import type { DashboardServer, SignedIn } from './harness.ts';

/**
 * A subscription render's credential for a signed-in user, made as the renderer makes one
 * (src/dashboard/render/credential.ts), with the database it was made on: revoke the credential, then close it.
 */
export async function renderCredentialFor(s: DashboardServer, user: SignedIn) {
  const db = await openDatabase({ url: s.database.url, dataDir: '/tmp/unused', schema: 'dashboard', poolSize: 1 });
  const credential = await renderCredential(db, jwtKeys(s.config.jwtSecret, s.config.secretKey), {
    id: user.userId,
    tenantId: user.tenantId,
    role: user.role,
    email: user.email,
    plan: 'enterprise',
  });
  return { credential, db };
}
