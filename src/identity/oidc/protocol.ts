/**
 * The identifiers and algorithms the provider (discovery, client metadata) and the features that plug grants into it
 * (credentials, delegation) share. The grants themselves are the features'; oidc/ only names them.
 */

/** RFC 8693 token exchange: an API key (credentials) or a person's access token (delegation) is the subject token. */
export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const API_KEY_TOKEN_TYPE = 'urn:platform:params:oauth:token-type:api-key';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** RFC 7523 section 2.1: a JWT signed with a principal's registered key is the authorization grant. */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The grants by which a principal's own credential obtains a token, through an app allowed client credentials. */
export const CREDENTIAL_GRANTS = [TOKEN_EXCHANGE, JWT_BEARER] as const;

/** The algorithms a registered key may have: its assertions (private_key_jwt, jwt-bearer) are signed with one. */
export const KEY_ALGORITHMS = ['RS256', 'ES256'] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

/** The provider's endpoints (the contract's paths). */
export const ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  introspection: '/oauth/introspect',
  revocation: '/oauth/revoke',
  jwks: '/.well-known/jwks.json',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/logout',
  // RFC 8628: the device asks here for a device code and a user code; the person types the user code at the second.
  device_authorization: '/oauth/device/auth',
  code_verification: '/oauth/device',
} as const;

/** The grant types the contract names; discovery lists the features' grants beside them. */
export const CONTRACT_GRANTS = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
export const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'] as const;
/** Introspection takes HTTP Basic (the contract) or a client assertion of an app with keys; nothing else. */
export const INTROSPECTION_AUTH_METHODS = ['client_secret_basic', 'private_key_jwt'] as const;
