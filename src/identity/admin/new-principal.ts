import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { JsonObject, Scopes, Uuid } from '../api/schemas.ts';
import type { PrincipalView } from '../principals/view.ts';
import { createAgent, createHuman, createService, type AlsoWrite } from '../principals/store.ts';

/** A new principal's body (POST /api/v1/principals): a human, a service or an agent; applications come with their app. */
const Common = {
  display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  allowed_scopes: Type.Optional(Scopes),
  capabilities: Type.Optional(JsonObject),
  metadata: Type.Optional(JsonObject),
  organization_id: Type.Optional(Uuid),
};
const NewHuman = Type.Object(
  {
    type: Type.Literal('human'),
    email: Type.String({ minLength: 3, maxLength: 320 }),
    password: Type.Optional(Type.String({ minLength: 12, maxLength: 1024 })),
    display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    given_name: Type.Optional(Type.String({ maxLength: 100 })),
    family_name: Type.Optional(Type.String({ maxLength: 100 })),
    is_platform_admin: Type.Optional(Type.Boolean()),
    email_verified: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'NewHuman' },
);
const NewService = Type.Object(
  {
    type: Type.Literal('service'),
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Unique; becomes the identifier.' }),
    service_type: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    allowed_ips: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 })),
    ...Common,
  },
  { additionalProperties: false, title: 'NewService' },
);
const NewAgent = Type.Object(
  {
    type: Type.Literal('agent'),
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Unique; becomes the identifier.' }),
    model_id: Type.String({ minLength: 1, maxLength: 200 }),
    version: Type.Optional(Type.String({ maxLength: 100 })),
    capability_constraints: Type.Optional(JsonObject),
    resource_constraints: Type.Optional(JsonObject),
    max_token_lifetime: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
    session_id: Type.Optional(Type.String({ maxLength: 200 })),
    requires_confirmation: Type.Optional(Type.Boolean()),
    delegating_principal_id: Type.Optional(Uuid),
    dpop_required: Type.Optional(Type.Boolean({ description: 'Require DPoP-bound delegated tokens (default false).' })),
    ...Common,
  },
  { additionalProperties: false, title: 'NewAgent' },
);
export const NewPrincipal = Type.Union([NewHuman, NewService, NewAgent], {
  description: 'Applications are registered through /applications, which creates their principal.',
});
const NEW_PRINCIPAL_TYPES = { human: NewHuman, service: NewService, agent: NewAgent } as const;

/**
 * What is wrong with a new principal's body, told against the one kind its `type` names. Validated as the union alone,
 * Ajv reported every kind's complaint at once ("body must have required property 'name', body must have required
 * property 'name', body must match a schema in anyOf" for a human with a bad field).
 */
export function newPrincipalProblem(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body must be an object';
  const type = (body as { type?: unknown }).type;
  const schema =
    typeof type === 'string' && Object.hasOwn(NEW_PRINCIPAL_TYPES, type)
      ? NEW_PRINCIPAL_TYPES[type as keyof typeof NEW_PRINCIPAL_TYPES]
      : undefined;
  if (!schema)
    return 'body /type must be one of human, service, agent (applications are registered through POST /api/v1/applications)';
  if (Value.Check(schema, body)) return undefined;
  return [...Value.Errors(schema, body)]
    .filter((e) => e.keyword !== 'boolean')
    .map((e) => {
      const where = `body${e.instancePath ? ` ${e.instancePath}` : ''}`;
      if (e.keyword === 'additionalProperties') {
        const names = (e.params as { additionalProperties?: string[] }).additionalProperties ?? [];
        return `${where} has unknown ${names.length === 1 ? 'property' : 'properties'} ${names.map((n) => `'${n}'`).join(', ')} (a ${type} takes ${Object.keys(schema.properties).join(', ')})`;
      }
      return `${where} ${e.message}`;
    })
    .join(', ');
}

export /** Scopes must be known to the service (built-in or IDENTITY_EXTRA_SCOPES). */
function checkScopes(known: readonly string[], scopes: string[] | undefined): void {
  const unknown = (scopes ?? []).filter((s) => !known.includes(s));
  if (unknown.length)
    throw new HttpError(400, 'VALIDATION_ERROR', `unknown scope ${unknown.join(', ')}; known: ${known.join(', ')}`);
}

/**
 * Creates the principal the body describes (its scopes known to the service, unless a human's); `also` writes in its
 * transaction (`platform identity` commands record their change there).
 */
export async function createPrincipal(
  deps: { db: Database; scopes: readonly string[] },
  b: Static<typeof NewPrincipal>,
  also?: AlsoWrite<PrincipalView>,
): Promise<PrincipalView> {
  if (b.type === 'human') {
    return createHuman(
      deps.db,
      {
        email: b.email,
        password: b.password,
        displayName: b.display_name,
        givenName: b.given_name,
        familyName: b.family_name,
        isPlatformAdmin: b.is_platform_admin ?? false,
        emailVerified: b.email_verified ?? false,
      },
      also,
    );
  }
  checkScopes(deps.scopes, b.allowed_scopes);
  const common = {
    name: b.name,
    displayName: b.display_name,
    allowedScopes: b.allowed_scopes,
    capabilities: b.capabilities,
    metadata: b.metadata,
    organizationId: b.organization_id,
  };
  return b.type === 'service'
    ? await createService(
        deps.db,
        {
          ...common,
          serviceType: b.service_type,
          description: b.description,
          allowedIps: b.allowed_ips,
        },
        also,
      )
    : await createAgent(
        deps.db,
        {
          ...common,
          modelId: b.model_id,
          version: b.version,
          capabilityConstraints: b.capability_constraints,
          resourceConstraints: b.resource_constraints,
          maxTokenLifetime: b.max_token_lifetime,
          sessionId: b.session_id,
          requiresConfirmation: b.requires_confirmation,
          delegatingPrincipalId: b.delegating_principal_id,
          dpopRequired: b.dpop_required,
        },
        also,
      );
}
