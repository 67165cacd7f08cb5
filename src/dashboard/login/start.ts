import { HttpError } from '../../kit/errors.ts';
import type { DashboardContext } from '../context.ts';
import { validation } from '../errors.ts';
import { LoginFailed, type LoginProvider } from './provider.ts';
import { redirectAllowed } from './redirect.ts';
import { beginLogin } from './state.ts';

type Context = Pick<DashboardContext, 'db' | 'config'>;

/**
 * A new login at the provider: its state, PKCE verifier and nonce kept for the callback, and the provider's
 * authorization URL. `redirect` must be the service's own web app (at `base`) or on the allow-list.
 */
export async function startLogin(
  ctx: Context,
  p: LoginProvider,
  base: string,
  callbackUrl: string,
  query: { redirect?: string | undefined; tenant?: string | undefined },
): Promise<{ state: string; url: URL }> {
  const { redirect, tenant } = query;
  if (redirect !== undefined && !redirectAllowed(redirect, [`${base}/`, ...ctx.config.redirectAllowList])) {
    throw validation('redirect: not an allowed address (see DASHBOARD_REDIRECT_ALLOWLIST)');
  }
  const pending = await beginLogin(ctx.db, p.id, redirect ?? null, tenant ?? null);
  try {
    return { state: pending.state, url: await p.authorizationUrl(pending, callbackUrl) };
  } catch (err) {
    if (err instanceof LoginFailed) throw new HttpError(503, 'UNAVAILABLE', err.message);
    throw err;
  }
}
