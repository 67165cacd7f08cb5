import { adminSecurityScheme } from '../../kit/auth/admin-guard.ts';
import { DPOP_SCHEME_NOTE } from '../../kit/auth/dpop.ts';
import { LOGIN_SESSION_SCHEME } from '../access/rules.ts';
import { OIDC_PATHS, oidcComponents } from '../oidc/openapi.ts';

const TAGS = [
  { name: 'oauth', description: 'OAuth 2.0 and OpenID Connect endpoints (answered by oidc-provider)' },
  {
    name: 'sign-in',
    description: 'The sign-in, consent, sign-out, change-password and invitation pages (HTML)',
  },
  {
    name: 'management',
    description: 'Principals, organizations, applications, secrets, tokens and consents (admin scope).',
  },
  {
    name: 'resource-servers',
    description:
      'What a resource server (an app registered with resource_server) may ask about the principals whose tokens it takes.',
  },
  { name: 'invitations', description: "The invited person's side of an invitation." },
  {
    name: 'webhooks',
    description:
      "Identity's events sent to your URLs, signed per Standard Webhooks, with each webhook's delivery log (admin scope).",
  },
  { name: 'account', description: "The signed-in person's own account (their access token, any app)." },
  {
    name: 'agents',
    description: "A person's own agents: approvals, pending requests, delegated tokens and the exchange record.",
  },
  {
    name: 'billing',
    description: "Organizations' subscriptions, moved by the payment provider's (Stripe's) webhooks.",
  },
  {
    name: 'scim',
    description:
      "SCIM 2.0 provisioning (RFC 7643, RFC 7644) under /scim/v2 for an enterprise directory (Okta, Entra ID): people, and groups as organizations, with a SCIM connection's token; and the connections themselves under /api/v1/scim-connections (admin scope).",
  },
  {
    name: 'marketplace',
    description:
      "Listings, licenses and seats: a person's token or a platform admin's; what each may do is decided by their memberships (docs/identity.md).",
  },
];

/**
 * /openapi.json beside the routes' own schemas: the OAuth and OpenID Connect endpoints written out (oidc/openapi.ts), the
 * security schemes the routes' declarations name, and the tags.
 */
export function identityOpenApi(issuer: string) {
  const oidc = oidcComponents(issuer);
  return {
    servers: [{ url: issuer, description: 'the issuer (IDENTITY_ISSUER)' }],
    paths: OIDC_PATHS,
    components: {
      schemas: oidc.schemas,
      securitySchemes: {
        ...oidc.securitySchemes,
        ...adminSecurityScheme(
          'An access token of this service with the `admin` scope, issued to a platform admin; or `IDENTITY_ADMIN_TOKEN`.',
        ),
        personToken: {
          type: 'http',
          scheme: 'bearer',
          description: `An access token of this service issued to the signed-in person (any app, any scope). ${DPOP_SCHEME_NOTE}`,
        },
        ...LOGIN_SESSION_SCHEME,
        scimToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            "A SCIM connection's token (`scim_…`), made by a platform admin (POST /api/v1/scim-connections) and shown once. Opens /scim/v2 only.",
        },
      },
    },
    tags: TAGS,
  };
}
