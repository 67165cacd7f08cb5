import type { Queryable } from '../../kit/db.ts';

export const PRINCIPAL_TYPES = ['human', 'application', 'agent', 'service'] as const;
export type PrincipalType = (typeof PRINCIPAL_TYPES)[number];

export interface HumanRecord {
  email: string;
  givenName: string | null;
  familyName: string | null;
  avatarUrl: string | null;
  locale: string | null;
  timezone: string | null;
  isPlatformAdmin: boolean;
  lastLoginAt: string | null;
  emailVerifiedAt: string | null;
}

export interface ServiceRecord {
  serviceType: string;
  description: string | null;
  lastUsedAt: string | null;
  allowedIps: string[];
  createdBy: string | null;
}

export interface AgentRecord {
  modelId: string;
  version: string | null;
  capabilityConstraints: Record<string, unknown>;
  resourceConstraints: Record<string, unknown>;
  maxTokenLifetime: number;
  sessionId: string | null;
  requiresConfirmation: boolean;
  delegatingPrincipalId: string | null;
  /** Its delegated tokens must be DPoP-bound (migration 011). */
  dpopRequired: boolean;
}

export interface ApplicationRecord {
  clientId: string;
  oauthAppId: string;
}

/**
 * The one read model of a principal: the principals row with the extension record its type selects. The provider,
 * the sign-in pages, the management API and the CLI all read principals through it.
 */
export interface PrincipalView {
  id: string;
  type: PrincipalType;
  identifier: string;
  displayName: string;
  active: boolean;
  capabilities: Record<string, unknown>;
  allowedScopes: string[];
  metadata: Record<string, unknown> | null;
  organizationId: string | null;
  createdAt: string;
  updatedAt: string;
  human: HumanRecord | null;
  service: ServiceRecord | null;
  agent: AgentRecord | null;
  application: ApplicationRecord | null;
}

const iso = (v: unknown): string | null => (v == null ? null : new Date(v as string).toISOString());
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** Selects principals (alias p) with their extension rows as JSON; append WHERE/ORDER to it. */
export const PRINCIPAL_SELECT = `SELECT p.id, p.type, p.identifier, p.display_name, p.active, p.capabilities, p.allowed_scopes, p.metadata,
    p.organization_id, p.created_at, p.updated_at,
    to_jsonb(h) AS human, to_jsonb(s) AS service, to_jsonb(a) AS agent, to_jsonb(ap) AS application
  FROM principals p
  LEFT JOIN humans h ON h.principal_id = p.id
  LEFT JOIN service_principals s ON s.principal_id = p.id
  LEFT JOIN agents a ON a.principal_id = p.id
  LEFT JOIN applications ap ON ap.principal_id = p.id`;

export function principalFromRow(row: Record<string, unknown>): PrincipalView {
  const h = row.human as Record<string, unknown> | null;
  const s = row.service as Record<string, unknown> | null;
  const a = row.agent as Record<string, unknown> | null;
  const ap = row.application as Record<string, unknown> | null;
  return {
    id: String(row.id),
    type: row.type as PrincipalType,
    identifier: String(row.identifier),
    displayName: String(row.display_name),
    active: Boolean(row.active),
    capabilities: obj(row.capabilities),
    allowedScopes: strings(row.allowed_scopes),
    metadata: row.metadata == null ? null : obj(row.metadata),
    organizationId: (row.organization_id as string | null) ?? null,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    human: h
      ? {
          email: String(h.email),
          givenName: (h.given_name as string | null) ?? null,
          familyName: (h.family_name as string | null) ?? null,
          avatarUrl: (h.avatar_url as string | null) ?? null,
          locale: (h.locale as string | null) ?? null,
          timezone: (h.timezone as string | null) ?? null,
          isPlatformAdmin: Boolean(h.is_platform_admin),
          lastLoginAt: iso(h.last_login_at),
          emailVerifiedAt: iso(h.email_verified_at),
        }
      : null,
    service: s
      ? {
          serviceType: String(s.service_type),
          description: (s.description as string | null) ?? null,
          lastUsedAt: iso(s.last_used_at),
          allowedIps: strings(s.allowed_ips),
          createdBy: (s.created_by as string | null) ?? null,
        }
      : null,
    agent: a
      ? {
          modelId: String(a.model_id),
          version: (a.version as string | null) ?? null,
          capabilityConstraints: obj(a.capability_constraints),
          resourceConstraints: obj(a.resource_constraints),
          maxTokenLifetime: Number(a.max_token_lifetime),
          sessionId: (a.session_id as string | null) ?? null,
          requiresConfirmation: Boolean(a.requires_confirmation),
          delegatingPrincipalId: (a.delegating_principal_id as string | null) ?? null,
          dpopRequired: a.dpop_required === true,
        }
      : null,
    application: ap ? { clientId: String(ap.client_id), oauthAppId: String(ap.oauth_app_id) } : null,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findPrincipal(db: Queryable, id: string | undefined): Promise<PrincipalView | undefined> {
  if (!id || !UUID.test(id)) return undefined;
  const r = await db.query<Record<string, unknown>>(`${PRINCIPAL_SELECT} WHERE p.id = $1`, [id]);
  return r.rows[0] ? principalFromRow(r.rows[0]) : undefined;
}

/** The principals of `ids` that exist, by id, in one statement (ids that are not UUIDs are skipped). */
export async function findPrincipals(db: Queryable, ids: readonly string[]): Promise<Map<string, PrincipalView>> {
  const valid = ids.filter((id) => UUID.test(id));
  if (valid.length === 0) return new Map();
  const r = await db.query<Record<string, unknown>>(`${PRINCIPAL_SELECT} WHERE p.id = ANY($1::uuid[])`, [valid]);
  return new Map(
    r.rows.map((row) => {
      const p = principalFromRow(row);
      return [p.id, p];
    }),
  );
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findHumanByEmail(db: Queryable, email: string): Promise<PrincipalView | undefined> {
  const r = await db.query<Record<string, unknown>>(`${PRINCIPAL_SELECT} WHERE lower(h.email) = $1`, [
    normaliseEmail(email),
  ]);
  return r.rows[0] ? principalFromRow(r.rows[0]) : undefined;
}

export interface PrincipalFilter {
  type?: PrincipalType | undefined;
  organizationId?: string | undefined;
  active?: boolean | undefined;
  limit: number;
  after?: string | undefined;
}

/** Principals by id order after the cursor; `organizationId` matches the home organization or an active membership. */
export async function listPrincipals(db: Queryable, f: PrincipalFilter): Promise<PrincipalView[]> {
  const r = await db.query<Record<string, unknown>>(
    `${PRINCIPAL_SELECT}
      WHERE ($1::text IS NULL OR p.type = $1) AND ($2::boolean IS NULL OR p.active = $2) AND ($3::uuid IS NULL OR p.id > $3)
        AND ($4::uuid IS NULL OR p.organization_id = $4
             OR EXISTS (SELECT 1 FROM principal_memberships m WHERE m.principal_id = p.id AND m.organization_id = $4 AND m.active))
      ORDER BY p.id LIMIT $5`,
    [f.type ?? null, f.active ?? null, f.after ?? null, f.organizationId ?? null, f.limit],
  );
  return r.rows.map(principalFromRow);
}
