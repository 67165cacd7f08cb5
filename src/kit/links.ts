import type { TokenVerifier } from './auth/admin-guard.ts';
import type { HeldScopeCheck } from './auth/held-scope.ts';

/**
 * What `platform start` hands a service whose API takes identity's access tokens (audit, ingest) when it runs identity
 * in the same process (src/platform/links.ts): no introspection client to register, no CORS to configure.
 */
export interface IdentityTokenLinks {
  /**
   * Checks an access token in identity's own token store, as identity's management API does: the same database every
   * instance shares, so a token is judged alike whichever instance is asked, and a right taken away stops counting at once.
   */
  verifier: TokenVerifier;
  /** Whether a person still holds a scope, read in identity's own store: for credentials a service keeps on a person's behalf. */
  holdsScope: HeldScopeCheck;
  /** Browser origins allowed to call `/api/v1` besides `<SERVICE>_CORS_ORIGINS`: the console's (the dashboard's origin). */
  corsOrigins: string[];
}
