import Provider, { errors, interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import type { Queryable } from '../../kit/db.ts';

/**
 * Organization-scoped tokens. An app asks for a token that speaks for a principal inside one organization with the
 * `organization` parameter (the organization's id or slug): at the authorization endpoint (the code, its refresh tokens
 * and every access token of that grant are then bound to it), or at the token endpoint with any grant (that access token
 * only). The token carries `org_id`; introspection adds the membership's role and permissions as they are now, and the
 * token counts only while the membership and the organization are active.
 */
export const ORGANIZATION_PARAM = 'organization';
/** Where a refresh token or authorization code keeps its organization (an access token keeps it in `extra`, as its `org_id` claim). */
const BOUND = 'org_id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export interface OrgMembership {
  orgId: string;
  role: string;
  permissions: string[];
}

/** The claims an organization-scoped token shows (introspection, userinfo, ID token). */
export function orgClaims(m: OrgMembership): { org_id: string; org_role: string; org_permissions: string[] } {
  return { org_id: m.orgId, org_role: m.role, org_permissions: m.permissions };
}

function checkValue(value: unknown): string {
  if (typeof value !== 'string')
    throw new errors.InvalidRequest('organization must be given once, as an organization id or slug');
  if (!UUID.test(value) && !SLUG.test(value))
    throw new errors.InvalidRequest('organization must be an organization id (UUID) or slug');
  return value;
}

/** The organization a token names, whatever kind it is: access tokens in `extra`, codes and refresh tokens on themselves. */
export function boundOrganization(token: unknown): string | undefined {
  const t = token as { extra?: Record<string, unknown>; [BOUND]?: unknown } | undefined;
  const id = t?.extra?.[BOUND] ?? t?.[BOUND];
  return typeof id === 'string' ? id : undefined;
}

export class OrganizationTokens {
  private readonly db: Queryable;
  /** What this request decided (a membership, or null for "no organization"), so the token's save reuses it. */
  private readonly decided = new WeakMap<object, OrgMembership | null>();
  /** The membership a token was checked against during this request (introspection shows its role and permissions). */
  private readonly checked = new WeakMap<object, OrgMembership>();

  constructor(db: Queryable) {
    this.db = db;
  }

  /** The organization with this id or slug: its id, or undefined when there is none. */
  async resolve(value: string): Promise<string | undefined> {
    const r = UUID.test(value)
      ? await this.db.query<{ id: string }>('SELECT id FROM organizations WHERE id = $1', [value])
      : await this.db.query<{ id: string }>('SELECT id FROM organizations WHERE slug = $1', [value]);
    return r.rows[0]?.id;
  }

  /** The principal's membership, when it is active in an active organization: what makes an organization token count. */
  async membership(orgId: string, principalId: string | undefined): Promise<OrgMembership | undefined> {
    if (!principalId) return undefined;
    const r = await this.db.query<{ role: string; permissions: string[] | null }>(
      `SELECT m.role, m.permissions FROM principal_memberships m JOIN organizations o ON o.id = m.organization_id
        WHERE m.organization_id = $1 AND m.principal_id = $2 AND m.active AND o.active`,
      [orgId, principalId],
    );
    const row = r.rows[0];
    return row ? { orgId, role: row.role, permissions: row.permissions ?? [] } : undefined;
  }

  /**
   * The membership for a requested organization (id or slug), or the refusal: an unknown organization and one the
   * principal is not an active member of get the same answer, so the parameter tells a caller nothing about others.
   */
  async require(
    value: string,
    principalId: string | undefined,
    refuse: (description: string) => Error,
  ): Promise<OrgMembership> {
    const orgId = await this.resolve(value);
    const m = orgId ? await this.membership(orgId, principalId) : undefined;
    if (!m) throw refuse(`the principal is not an active member of organization ${value}`);
    return m;
  }

  /** The `organization` parameter of a token request, read from the body (the provider keeps only each grant's own parameters). */
  requestedAtToken(ctx: KoaContextWithOIDC): string | undefined {
    const value = (ctx.oidc.body as Record<string, unknown> | undefined)?.[ORGANIZATION_PARAM];
    return value === undefined || value === '' ? undefined : checkValue(value);
  }

  /**
   * At the token endpoint, for the principal a token will speak for: the organization requested now, or the one its
   * code, refresh token or (delegation) subject token is bound to (a different one is refused). Remembered for the
   * token's save (extraTokenClaims). `refusal` lets a grant name what is bound and show its descriptions (the provider's
   * InvalidGrant hides them).
   */
  async decide(
    ctx: KoaContextWithOIDC,
    principalId: string | undefined,
    source?: unknown,
    refusal: { refuse: (description: string) => Error; source: string } = {
      refuse: (d) => new errors.InvalidGrant(d),
      source: 'this grant',
    },
  ): Promise<OrgMembership | undefined> {
    const known = this.decided.get(ctx);
    if (known !== undefined) return known ?? undefined;
    const requested = this.requestedAtToken(ctx);
    const bound = boundOrganization(source);
    let m: OrgMembership | undefined;
    if (requested) {
      m = await this.require(requested, principalId, refusal.refuse);
      if (bound && bound !== m.orgId) throw refusal.refuse(`${refusal.source} is bound to another organization`);
    } else if (bound) {
      m = await this.membership(bound, principalId);
      if (!m)
        throw refusal.refuse(
          `the principal is no longer an active member of the organization ${refusal.source} is bound to`,
        );
    }
    this.decided.set(ctx, m ?? null);
    return m;
  }

  /** The `org_id` claim of an access or client-credentials token being saved (decided earlier in the request, or now). */
  async claimFor(
    ctx: KoaContextWithOIDC | undefined,
    principalId: string | undefined,
  ): Promise<{ org_id: string } | undefined> {
    if (ctx?.oidc?.route !== 'token') return undefined;
    const m = await this.decide(ctx, principalId);
    return m ? { org_id: m.orgId } : undefined;
  }

  /** Whether an organization token still counts (membership and organization active); a token without one always does. */
  async stillMember(token: object, principalId: string | undefined): Promise<boolean> {
    const orgId = boundOrganization(token);
    if (!orgId) return true;
    const m = await this.membership(orgId, principalId);
    if (m) this.checked.set(token, m);
    return m !== undefined;
  }

  /** The membership `stillMember` found for this token in this request. */
  checkedMembership(token: object): OrgMembership | undefined {
    return this.checked.get(token);
  }

  /**
   * An authorization request naming an organization is refused (access_denied, redirected to the app) unless the signed-in
   * principal is an active member. Runs first among the consent checks: the person is known by then, nothing is granted yet.
   */
  authorizationCheck(): InstanceType<typeof interactionPolicy.Check> {
    return new interactionPolicy.Check(
      'organization_member',
      'the principal must be a member of the requested organization',
      'access_denied',
      async (ctx: KoaContextWithOIDC) => {
        const value = ctx.oidc.params?.[ORGANIZATION_PARAM];
        if (value !== undefined && value !== '')
          await this.require(checkValue(value), ctx.oidc.session?.accountId, (d) => new errors.AccessDenied(d));
        return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      },
    );
  }

  /** The `extraParams` validator of the authorization endpoint: only the value's form is checked there. */
  readonly validateParam = (_ctx: KoaContextWithOIDC, value: string | undefined): void => {
    if (value !== undefined && value !== '') checkValue(value);
  };

  /**
   * Makes authorization codes and refresh tokens carry their organization: a code takes the authorization request's, a
   * refresh token its code's or (on rotation) its predecessor's. The provider copies only the properties it knows.
   */
  install(provider: Provider): void {
    type Model = { IN_PAYLOAD: string[]; prototype: { save(...args: unknown[]): Promise<string> } };
    for (const Model of [provider.AuthorizationCode, provider.RefreshToken] as unknown as Model[]) {
      const base = Model.IN_PAYLOAD;
      Object.defineProperty(Model, 'IN_PAYLOAD', { get: () => [...base, BOUND], configurable: true });
    }
    const code = provider.AuthorizationCode as unknown as Model;
    const codeSave = code.prototype.save;
    const tokens = this;
    code.prototype.save = async function save(this: Record<string, unknown>, ...args: unknown[]) {
      const value = (Provider.ctx as KoaContextWithOIDC | undefined)?.oidc?.params?.[ORGANIZATION_PARAM];
      if (this[BOUND] === undefined && typeof value === 'string' && value !== '') {
        this[BOUND] = (
          await tokens.require(value, this.accountId as string | undefined, (d) => new errors.AccessDenied(d))
        ).orgId;
      }
      return codeSave.apply(this, args);
    };
    const refresh = provider.RefreshToken as unknown as Model;
    const refreshSave = refresh.prototype.save;
    refresh.prototype.save = async function save(this: Record<string, unknown>, ...args: unknown[]) {
      const entities = (Provider.ctx as KoaContextWithOIDC | undefined)?.oidc?.entities;
      if (this[BOUND] === undefined) {
        const from = boundOrganization(entities?.AuthorizationCode) ?? boundOrganization(entities?.RotatedRefreshToken);
        if (from) this[BOUND] = from;
      }
      return refreshSave.apply(this, args);
    };
  }
}
