/**
 * The OAuth 2.0 / OpenID Connect endpoints in /openapi.json. oidc-provider answers them behind one
 * catch-all route (see mount.ts), so they are written out here, with the `oauth2` and `openIdConnect`
 * security schemes. The discovery document stays the authority on what the server supports.
 */

const json = (schema: Record<string, unknown>) => ({ 'application/json': { schema } });
const form = (properties: Record<string, unknown>, required: string[]) => ({
  'application/x-www-form-urlencoded': { schema: { type: 'object', properties, required } },
});
const str = (description: string) => ({ type: 'string', description });
const OAuthError = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'string',
      description:
        'RFC 6749 §5.2 code: invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope, ...',
    },
    error_description: { type: 'string' },
  },
};
const oauthError = (description: string) => ({
  description,
  content: json({ $ref: '#/components/schemas/OAuthError' }),
});
// private_key_jwt has no OpenAPI scheme of its own: the assertion travels in the form (clientAssertionFields).
const clientAuth = [{ clientBasic: [] }, {}];
const clientAssertionFields = {
  client_assertion_type: {
    type: 'string',
    enum: ['urn:ietf:params:oauth:client-assertion-type:jwt-bearer'],
    description: 'private_key_jwt (RFC 7523 section 2.2), instead of HTTP Basic',
  },
  client_assertion: str(
    "private_key_jwt: a JWT signed with one of the app's registered keys (`kid` names it; RS256 or ES256): `iss` and `sub` the client_id, `aud` the issuer or this endpoint, a single-use `jti`, `exp` within 300 s",
  ),
};
const tags = ['oauth'];

const authorizeParameters = [
  ['response_type', 'Always `code`', true],
  ['client_id', 'The app asking', true],
  ['redirect_uri', "One of the app's registered redirect URIs", true],
  ['scope', 'Space-separated scopes; `openid` for an ID token', false],
  ['state', 'Returned unchanged to the redirect URI', false],
  ['nonce', 'Copied into the ID token', false],
  ['code_challenge', 'PKCE (RFC 7636), required for public apps', false],
  ['code_challenge_method', 'Always `S256`', false],
  ['prompt', '`login`, `consent` or `none`', false],
  [
    'organization',
    'An organization id or slug: the tokens of this grant are bound to it (the person must be an active member, else `access_denied`)',
    false,
  ],
].map(([name, description, required]) => ({ name, in: 'query', required, schema: { type: 'string' }, description }));

const authorizeResponses = {
  303: {
    description:
      'To the sign-in or consent page, or back to the redirect URI with `code` and `state` (or `error`, `error_description`, `state`, `iss`)',
  },
  400: {
    description: 'An unknown client or an unregistered redirect URI: an HTML error page, never a redirect',
    content: { 'text/html': { schema: { type: 'string' } } },
  },
};

export const OIDC_PATHS = {
  '/oauth/authorize': {
    get: {
      operationId: 'authorize',
      tags,
      summary: 'Authorization endpoint (authorization code with PKCE)',
      parameters: authorizeParameters,
      responses: authorizeResponses,
    },
    post: {
      operationId: 'authorizeByForm',
      tags,
      summary:
        'Authorization endpoint, parameters sent as a form: answered 303 to GET /oauth/authorize with the same parameters (at most 8 KiB)',
      requestBody: {
        required: true,
        content: form(Object.fromEntries(authorizeParameters.map((p) => [p.name, str(p.description as string)])), [
          'response_type',
          'client_id',
          'redirect_uri',
        ]),
      },
      responses: {
        303: { description: "To GET /oauth/authorize with the form's parameters as its query" },
        413: { description: 'A form over 8 KiB' },
        415: { description: 'Not application/x-www-form-urlencoded' },
      },
    },
  },
  '/oauth/token': {
    post: {
      operationId: 'token',
      tags,
      summary:
        'Token endpoint: authorization_code, refresh_token, client_credentials, token exchange, jwt-bearer; clients authenticate with HTTP Basic, client_secret_post, a client assertion (private_key_jwt) or, public apps, client_id alone',
      security: clientAuth,
      parameters: [
        {
          name: 'DPoP',
          in: 'header',
          required: false,
          schema: { type: 'string' },
          description:
            "A DPoP proof JWT (RFC 9449): the tokens issued are bound to its key; required for an app with dpop_bound_access_tokens, to refresh a bound refresh token, and (by that token's key) to exchange a bound subject or actor token",
        },
      ],
      requestBody: {
        required: true,
        content: form(
          {
            grant_type: {
              type: 'string',
              enum: [
                'authorization_code',
                'refresh_token',
                'client_credentials',
                'urn:ietf:params:oauth:grant-type:token-exchange',
                'urn:ietf:params:oauth:grant-type:jwt-bearer',
              ],
            },
            subject_token: str(
              'token-exchange: an API key, or (delegation) the access token of the person, or of the agent above, that the agent acts for',
            ),
            subject_token_type: {
              type: 'string',
              enum: ['urn:platform:params:oauth:token-type:api-key', 'urn:ietf:params:oauth:token-type:access_token'],
            },
            actor_token: str(
              "token-exchange delegation: the agent's proof, a JWT signed with its registered key or its own access token",
            ),
            actor_token_type: {
              type: 'string',
              enum: ['urn:ietf:params:oauth:token-type:jwt', 'urn:ietf:params:oauth:token-type:access_token'],
            },
            audience: str(
              "token-exchange delegation: the resource server the token is for (repeatable; within the agent's resource_constraints)",
            ),
            requested_token_type: { type: 'string', enum: ['urn:ietf:params:oauth:token-type:access_token'] },
            assertion: str("jwt-bearer: a JWT signed with the principal's registered key (RFC 7523)"),
            code: str('authorization_code: the code from the redirect'),
            redirect_uri: str('authorization_code: the same redirect URI as in the authorization request'),
            code_verifier: str('authorization_code: the PKCE verifier'),
            refresh_token: str('refresh_token: the refresh token (rotated: the answer carries a new one)'),
            scope: str('client_credentials or refresh_token: the scopes wanted (at most those allowed)'),
            client_id: str('A public app (no secret), or client_secret_post'),
            client_secret: str('client_secret_post'),
            ...clientAssertionFields,
            organization: str(
              "Any grant: an organization id or slug the token is scoped to (its principal must be an active member, else invalid_grant); a delegation exchange keeps the subject token's organization and refuses another",
            ),
          },
          ['grant_type'],
        ),
      },
      responses: {
        200: {
          description: 'Tokens',
          content: json({
            type: 'object',
            required: ['access_token', 'token_type', 'expires_in'],
            properties: {
              access_token: { type: 'string' },
              token_type: {
                type: 'string',
                enum: ['Bearer', 'DPoP'],
                description: '`DPoP` when the request carried a DPoP proof (RFC 9449): the token is bound to its key',
              },
              expires_in: { type: 'integer' },
              refresh_token: { type: 'string' },
              id_token: { type: 'string', description: 'A JWT signed RS256 (with `openid`)' },
              scope: { type: 'string' },
              issued_token_type: {
                type: 'string',
                description: 'token-exchange: urn:ietf:params:oauth:token-type:access_token',
              },
            },
          }),
        },
        400: oauthError(
          'invalid_request, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope, invalid_dpop_proof; for delegation also invalid_target (audience) and access_denied (the person has not approved the agent)',
        ),
        401: oauthError('invalid_client'),
      },
    },
  },
  '/oauth/introspect': {
    post: {
      operationId: 'introspect',
      tags,
      summary:
        "Token introspection (RFC 7662); HTTP Basic, or a client assertion of an app with registered keys; details only to the token's own app or a resource server",
      security: clientAuth,
      requestBody: {
        required: true,
        content: form(
          {
            token: { type: 'string' },
            token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] },
            ...clientAssertionFields,
          },
          ['token'],
        ),
      },
      responses: {
        200: {
          description: "`{active:false}`, or the token's details",
          content: json({
            type: 'object',
            required: ['active'],
            properties: {
              active: { type: 'boolean' },
              scope: { type: 'string' },
              client_id: { type: 'string' },
              username: { type: 'string' },
              token_type: { type: 'string' },
              cnf: {
                type: 'object',
                properties: {
                  jkt: {
                    type: 'string',
                    description: 'JWK SHA-256 thumbprint of the key a DPoP-bound token is bound to',
                  },
                },
              },
              exp: { type: 'integer' },
              iat: { type: 'integer' },
              sub: { type: 'string' },
              aud: { type: 'array', items: { type: 'string' } },
              iss: { type: 'string' },
              org_id: { type: 'string', description: 'An organization-scoped token: its organization' },
              org_role: { type: 'string', description: "An organization-scoped token: the membership's role now" },
              org_permissions: {
                type: 'array',
                items: { type: 'string' },
                description: "An organization-scoped token: the membership's permissions now",
              },
              act: {
                type: 'object',
                description:
                  'A delegated token: the agent acting (RFC 8693 §4.1), with the agent before it nested in `act`',
                properties: { sub: { type: 'string' }, act: { type: 'object' } },
              },
              delegation_chain: {
                type: 'array',
                items: { type: 'string' },
                description: 'A delegated token: principal ids from the person to the agent holding it',
              },
              parent_token_id: {
                type: 'string',
                description: 'A delegated token: the id of the token it was exchanged from',
              },
            },
          }),
        },
        400: oauthError('invalid_request'),
        401: oauthError('invalid_client: HTTP Basic or a valid client assertion is required'),
      },
    },
  },
  '/oauth/revoke': {
    post: {
      operationId: 'revoke',
      tags,
      summary:
        "Token revocation (RFC 7009): HTTP Basic, a client assertion of an app with registered keys, or a public app's client_id alone",
      security: clientAuth,
      requestBody: {
        required: true,
        content: form(
          {
            token: { type: 'string' },
            token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] },
            client_id: str('A public app revoking its own token'),
            ...clientAssertionFields,
          },
          ['token'],
        ),
      },
      responses: {
        200: { description: 'Revoked, or nothing to revoke (the answer is the same)' },
        400: oauthError('invalid_request'),
        401: oauthError('invalid_client'),
      },
    },
  },
  '/oauth/userinfo': {
    get: {
      operationId: 'userinfo',
      tags,
      summary: "OpenID Connect userinfo: the claims of the token's scopes",
      security: [{ openIdConnect: ['openid'] }],
      responses: {
        200: {
          description: 'Claims',
          content: json({
            type: 'object',
            required: ['sub'],
            properties: {
              sub: { type: 'string' },
              email: { type: 'string' },
              email_verified: { type: 'boolean' },
              name: { type: 'string' },
            },
            additionalProperties: true,
          }),
        },
        401: {
          description: 'A missing, invalid or expired access token (`WWW-Authenticate: Bearer error="invalid_token"`)',
        },
      },
    },
    post: {
      operationId: 'userinfoByPost',
      tags,
      summary: 'OpenID Connect userinfo, by POST',
      security: [{ openIdConnect: ['openid'] }],
      responses: {
        200: { description: 'Claims', content: json({ type: 'object', additionalProperties: true }) },
        401: { description: 'A missing, invalid or expired access token' },
      },
    },
  },
  '/oauth/logout': {
    get: {
      operationId: 'logout',
      tags,
      summary: 'RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0): a confirmation page',
      parameters: ['id_token_hint', 'post_logout_redirect_uri', 'state', 'client_id'].map((name) => ({
        name,
        in: 'query',
        required: false,
        schema: { type: 'string' },
      })),
      responses: {
        200: { description: 'The confirmation page', content: { 'text/html': { schema: { type: 'string' } } } },
        400: { description: 'An HTML error page', content: { 'text/html': { schema: { type: 'string' } } } },
      },
    },
    post: {
      operationId: 'logoutByForm',
      tags,
      summary:
        'RP-initiated logout, parameters sent as a form: answered 303 to GET /oauth/logout with the same parameters (at most 8 KiB)',
      requestBody: {
        content: form(
          {
            id_token_hint: { type: 'string' },
            post_logout_redirect_uri: { type: 'string' },
            state: { type: 'string' },
            client_id: { type: 'string' },
          },
          [],
        ),
      },
      responses: {
        303: { description: "To GET /oauth/logout with the form's parameters as its query" },
        413: { description: 'A form over 8 KiB' },
        415: { description: 'Not application/x-www-form-urlencoded' },
      },
    },
  },
  '/oauth/logout/confirm': {
    post: {
      operationId: 'confirmLogout',
      tags,
      summary: 'The confirmation form of the logout page (its CSRF field included)',
      requestBody: { content: form({ xsrf: { type: 'string' }, logout: { type: 'string' } }, ['xsrf']) },
      responses: {
        303: { description: 'To the post-logout redirect URI, or the logout success page' },
        400: { description: 'An HTML error page' },
      },
    },
  },
  '/oauth/logout/success': {
    get: {
      operationId: 'logoutSuccess',
      tags,
      summary: 'The page shown after a logout without a post-logout redirect URI',
      responses: { 200: { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  },
  '/.well-known/openid-configuration': {
    get: {
      operationId: 'discovery',
      tags,
      summary: 'OpenID Connect discovery document',
      responses: {
        200: {
          description: 'Issuer, endpoints and supported values',
          content: json({
            type: 'object',
            required: ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'],
            additionalProperties: true,
          }),
        },
      },
    },
    options: {
      operationId: 'discoveryPreflight',
      tags,
      summary: 'CORS preflight: any origin may read the document',
      responses: { 204: { description: 'Allowed' } },
    },
  },
  '/.well-known/jwks.json': {
    get: {
      operationId: 'jwks',
      tags,
      summary: 'The public keys that verify ID tokens (RS256); retired keys stay until what they signed expires',
      responses: {
        200: {
          description: 'A JSON Web Key Set',
          content: json({
            type: 'object',
            required: ['keys'],
            properties: { keys: { type: 'array', items: { type: 'object', additionalProperties: true } } },
          }),
        },
      },
    },
    options: {
      operationId: 'jwksPreflight',
      tags,
      summary: 'CORS preflight: any origin may read the keys',
      responses: { 204: { description: 'Allowed' } },
    },
  },
};

/** The OAuth error body and the security schemes the paths above refer to. */
export function oidcComponents(issuer: string) {
  const base = issuer.replace(/\/$/, '');
  return {
    schemas: { OAuthError },
    securitySchemes: {
      clientBasic: {
        type: 'http',
        scheme: 'basic',
        description: "An app's client_id and client_secret (each form-encoded), RFC 6749 §2.3.1",
      },
      oauth2: {
        type: 'oauth2',
        flows: {
          authorizationCode: {
            authorizationUrl: `${base}/oauth/authorize`,
            tokenUrl: `${base}/oauth/token`,
            refreshUrl: `${base}/oauth/token`,
            scopes: SCOPE_DOCS,
          },
          clientCredentials: { tokenUrl: `${base}/oauth/token`, scopes: SCOPE_DOCS },
        },
      },
      openIdConnect: { type: 'openIdConnect', openIdConnectUrl: `${base}/.well-known/openid-configuration` },
    },
  };
}

const SCOPE_DOCS = {
  openid: 'An ID token and the subject',
  profile: 'Name and profile claims',
  email: 'Email and whether it is verified',
  offline_access: 'A refresh token',
  admin: 'The management API (platform admins only)',
};
