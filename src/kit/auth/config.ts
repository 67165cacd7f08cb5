import { ConfigError, optionalStr, optionalUrl, type Variable } from '../config.ts';
import { createAdminGuard, type AdminGuard, type TokenVerifier } from './admin-guard.ts';
import { introspectionVerifier } from './introspection.ts';
import type { ProofIds } from './dpop-replay.ts';

/** `<SERVICE>_ADMIN_TOKEN`: the service's own admin token, for machines and for a service started alone. */
export function adminTokenVariable(service: string, unset: string): Variable<string | undefined> {
  return optionalStr(`${service.toUpperCase()}_ADMIN_TOKEN`, {
    minLength: 16,
    secret: true,
    doc: `Bearer token that opens every route of the ${service} admin API under \`/api/v1\` (with every scope), for machines and for a service started alone; at least 16 characters, kept in memory only as its SHA-256. Unset: ${unset}`,
  });
}

/**
 * `<SERVICE>_PUBLIC_URL`: the base URL clients reach the service at. A DPoP proof names the URL its client called
 * (`htu`), which behind a TLS-terminating proxy is not what the service itself sees.
 */
export function publicUrlVariable(service: string, port: number): Variable<string | undefined> {
  return optionalUrl(`${service.toUpperCase()}_PUBLIC_URL`, ['http:', 'https:'], {
    doc: `Public base URL of the ${service} service as its clients reach it (behind a proxy, the proxy's address, with any path prefix the proxy strips): a DPoP proof sent with a DPoP-bound access token must name this URL plus the request's path as its \`htu\`. Unset: the scheme and \`Host\` of each request as it arrives (\`http://localhost:${port}\` when called directly).`,
  });
}

/**
 * The variables of the admin guard of a service other than identity: its own admin token, and the
 * identity service that checks access tokens with the service's client credentials.
 */
export function adminGuardVariables(service: string, port: number) {
  const prefix = service.toUpperCase();
  return {
    publicUrl: publicUrlVariable(service, port),
    adminToken: adminTokenVariable(
      service,
      `only access tokens of the identity service open it (see \`${prefix}_IDENTITY_URL\`); with neither, the admin API answers 401.`,
    ),
    identityUrl: optionalUrl(`${prefix}_IDENTITY_URL`, ['http:', 'https:'], {
      doc: `Base URL (issuer) of the platform's identity service, whose access tokens open the ${service} admin API when they carry the route's scope (checked by token introspection, answers kept a few seconds). Needs \`${prefix}_IDENTITY_CLIENT_ID\` and \`${prefix}_IDENTITY_CLIENT_SECRET\`.`,
    }),
    identityClientId: optionalStr(`${prefix}_IDENTITY_CLIENT_ID`, {
      doc: `client_id of the ${service} service's own app at identity, used to introspect tokens: a confidential app registered as a resource server (\`platform identity apps create --type service --resource-server\`), since identity tells other apps nothing about tokens not theirs.`,
    }),
    identityClientSecret: optionalStr(`${prefix}_IDENTITY_CLIENT_SECRET`, {
      secret: true,
      doc: `Client secret of that app.`,
    }),
  } satisfies Record<string, Variable<unknown>>;
}

export interface AdminGuardConfig {
  publicUrl: string | undefined;
  adminToken: string | undefined;
  identityUrl: string | undefined;
  identityClientId: string | undefined;
  identityClientSecret: string | undefined;
}

/** A half-configured identity link (a URL without the client id or secret) is a ConfigError naming what is missing. */
export function checkIdentityLink(service: string, config: AdminGuardConfig): void {
  const prefix = service.toUpperCase();
  if (!config.identityUrl) return;
  for (const [name, value] of [
    ['IDENTITY_CLIENT_ID', config.identityClientId],
    ['IDENTITY_CLIENT_SECRET', config.identityClientSecret],
  ] as const) {
    if (!value)
      throw new ConfigError(`${prefix}_${name}`, `${prefix}_${name} is required when ${prefix}_IDENTITY_URL is set`);
  }
}

/**
 * The admin guard a service's configuration describes; a half-configured identity link is a ConfigError naming what is missing.
 * `proofIds` shares seen DPoP proof ids between instances (`redisProofIds` when REDIS_URL is set).
 */
export function adminGuardFromConfig(
  service: string,
  config: AdminGuardConfig,
  extras: { verifier?: TokenVerifier; proofIds?: ProofIds | undefined } = {},
): AdminGuard {
  const prefix = service.toUpperCase();
  let tokens = extras.verifier;
  if (!tokens && config.identityUrl) {
    checkIdentityLink(service, config);
    tokens = introspectionVerifier({
      identityUrl: config.identityUrl,
      clientId: config.identityClientId!,
      clientSecret: config.identityClientSecret!,
    });
  }
  return createAdminGuard({
    realm: service,
    serviceTokens: [config.adminToken],
    verifier: tokens,
    howToEnable: `set ${prefix}_ADMIN_TOKEN, or ${prefix}_IDENTITY_URL with its client id and secret`,
    publicUrl: config.publicUrl,
    proofIds: extras.proofIds,
  });
}
