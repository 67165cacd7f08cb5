import { Type, type Static } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import { JsonObject, Nullable, Uuid } from '../api/schemas.ts';
import type { Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { findPrincipal, type PrincipalView } from './view.ts';

/** A principal as the management API shows it: the principal and the extension record its type selects. */
export const PrincipalType = Type.Union([
  Type.Literal('human'),
  Type.Literal('application'),
  Type.Literal('agent'),
  Type.Literal('service'),
]);

const HumanOut = Type.Object({
  email: Type.String(),
  given_name: Nullable(Type.String()),
  family_name: Nullable(Type.String()),
  avatar_url: Nullable(Type.String()),
  locale: Nullable(Type.String()),
  timezone: Nullable(Type.String()),
  is_platform_admin: Type.Boolean(),
  last_login_at: Nullable(Timestamp),
  email_verified_at: Nullable(Timestamp),
});
const ServiceOut = Type.Object({
  service_type: Type.String(),
  description: Nullable(Type.String()),
  last_used_at: Nullable(Timestamp),
  allowed_ips: Type.Array(Type.String()),
  created_by: Nullable(Uuid),
});
const AgentOut = Type.Object({
  model_id: Type.String(),
  version: Nullable(Type.String()),
  capability_constraints: JsonObject,
  resource_constraints: JsonObject,
  max_token_lifetime: Type.Integer(),
  session_id: Nullable(Type.String()),
  requires_confirmation: Type.Boolean(),
  delegating_principal_id: Nullable(Uuid),
  dpop_required: Type.Boolean({ description: 'Its delegated tokens must be DPoP-bound (RFC 9449).' }),
});
const ApplicationOut = Type.Object({ client_id: Type.String(), oauth_app_id: Uuid });

export const PrincipalOut = Type.Object(
  {
    id: Uuid,
    type: PrincipalType,
    identifier: Type.String(),
    display_name: Type.String(),
    active: Type.Boolean(),
    capabilities: JsonObject,
    allowed_scopes: Type.Array(Type.String()),
    metadata: Nullable(JsonObject),
    organization_id: Nullable(Uuid),
    created_at: Timestamp,
    updated_at: Timestamp,
    email: Type.Optional(Type.String({ description: "A human's email (also in `human`)." })),
    is_platform_admin: Type.Optional(Type.Boolean()),
    human: Type.Optional(HumanOut),
    service: Type.Optional(ServiceOut),
    agent: Type.Optional(AgentOut),
    application: Type.Optional(ApplicationOut),
  },
  { description: 'A principal with the extension record its type selects.' },
);

export function principalOut(p: PrincipalView): Static<typeof PrincipalOut> {
  return {
    id: p.id,
    type: p.type,
    identifier: p.identifier,
    display_name: p.displayName,
    active: p.active,
    capabilities: p.capabilities,
    allowed_scopes: p.allowedScopes,
    metadata: p.metadata,
    organization_id: p.organizationId,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    ...(p.human
      ? {
          email: p.human.email,
          is_platform_admin: p.human.isPlatformAdmin,
          human: {
            email: p.human.email,
            given_name: p.human.givenName,
            family_name: p.human.familyName,
            avatar_url: p.human.avatarUrl,
            locale: p.human.locale,
            timezone: p.human.timezone,
            is_platform_admin: p.human.isPlatformAdmin,
            last_login_at: p.human.lastLoginAt,
            email_verified_at: p.human.emailVerifiedAt,
          },
        }
      : {}),
    ...(p.service
      ? {
          service: {
            service_type: p.service.serviceType,
            description: p.service.description,
            last_used_at: p.service.lastUsedAt,
            allowed_ips: p.service.allowedIps,
            created_by: p.service.createdBy,
          },
        }
      : {}),
    ...(p.agent
      ? {
          agent: {
            model_id: p.agent.modelId,
            version: p.agent.version,
            capability_constraints: p.agent.capabilityConstraints,
            resource_constraints: p.agent.resourceConstraints,
            max_token_lifetime: p.agent.maxTokenLifetime,
            session_id: p.agent.sessionId,
            requires_confirmation: p.agent.requiresConfirmation,
            delegating_principal_id: p.agent.delegatingPrincipalId,
            dpop_required: p.agent.dpopRequired,
          },
        }
      : {}),
    ...(p.application
      ? { application: { client_id: p.application.clientId, oauth_app_id: p.application.oauthAppId } }
      : {}),
  };
}

/** The principal with this id, or 404 naming it: for the routes under /api/v1/principals/:id. */
export async function existingPrincipal(db: Queryable, id: string): Promise<PrincipalView> {
  const p = await findPrincipal(db, id);
  if (!p) throw new HttpError(404, 'NOT_FOUND', `no principal ${id}`);
  return p;
}
