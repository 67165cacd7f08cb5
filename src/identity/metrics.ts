import { Counter } from 'prom-client';
import { Registry } from '../kit/metrics.ts';
import type { OidcProvider } from './oidc/provider.ts';

/** Identity's own metrics, beside the kit's (HTTP, database pool, process) in the same registry. */
export interface IdentityMetrics {
  registry: Registry;
  /** Attaches to a provider (one is built per signing-key rotation). */
  observe(provider: OidcProvider): void;
  /** A token issued by the token endpoint's fast route (oidc/fast-token.ts), which the provider does not see, by its grant_type. */
  fastGrantSucceeded(grantType: string): void;
}

export function createIdentityMetrics(): IdentityMetrics {
  const registry = new Registry();
  const registers = [registry];
  const grants = new Counter({
    name: 'identity_token_requests_total',
    help: 'Token endpoint requests by grant type and outcome (success, error)',
    labelNames: ['grant_type', 'outcome'],
    registers,
  });
  const issued = new Counter({
    name: 'identity_tokens_issued_total',
    help: 'Tokens and codes stored, by kind (access_token, client_credentials, refresh_token, authorization_code)',
    labelNames: ['kind'],
    registers,
  });
  // Only these grants become labels of their own: a caller's made-up grant_type must not add a series.
  const grantLabel = (value: unknown) =>
    typeof value === 'string' && ['authorization_code', 'refresh_token', 'client_credentials'].includes(value)
      ? value
      : 'other';
  const grantType = (ctx: unknown) =>
    grantLabel((ctx as { oidc?: { params?: { grant_type?: unknown } } }).oidc?.params?.grant_type);
  return {
    registry,
    fastGrantSucceeded: (grantType) => grants.inc({ grant_type: grantLabel(grantType), outcome: 'success' }),
    observe(provider) {
      provider.on('grant.success', (ctx: unknown) => grants.inc({ grant_type: grantType(ctx), outcome: 'success' }));
      provider.on('grant.error', (ctx: unknown) => grants.inc({ grant_type: grantType(ctx), outcome: 'error' }));
      provider.on('access_token.saved', () => issued.inc({ kind: 'access_token' }));
      provider.on('client_credentials.saved', () => issued.inc({ kind: 'client_credentials' }));
      provider.on('refresh_token.saved', () => issued.inc({ kind: 'refresh_token' }));
      provider.on('authorization_code.saved', () => issued.inc({ kind: 'authorization_code' }));
    },
  };
}
