import { ADMIN } from '../access/rules.ts';
import { Timestamp } from '../../kit/schemas.ts';
import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ById, Errors, JsonObject, Nullable, Page, Security, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import { findPrincipal } from '../principals/view.ts';
import { checkLogoUrl } from '../apps/logo.ts';
import { checkBrandColor } from '../apps/brand.ts';
import {
  addMember,
  createOrganization,
  findMembership,
  existingOrganization,
  listMembers,
  listOrganizations,
  updateMember,
  updateOrganization,
} from './store.ts';

const OrgType = Type.Union([Type.Literal('personal'), Type.Literal('team'), Type.Literal('enterprise')]);
const Url = Type.String({ maxLength: 2000 });
const LogoUrl = Type.String({
  maxLength: 2000,
  description:
    'Shown on the sign-in and consent pages of a request naming the organization: an https URL (http only on localhost), else 400.',
});

const OrganizationOut = Type.Object({
  id: Uuid,
  name: Type.String(),
  slug: Type.String(),
  org_type: OrgType,
  logo_url: Nullable(Type.String()),
  brand_color: Nullable(
    Type.String({
      description:
        "The colour (#rrggbb) of the sign-in and consent pages' buttons and links for a request naming the organization; null: the app's, else the service's.",
    }),
  ),
  description: Nullable(Type.String()),
  website_url: Nullable(Type.String()),
  settings: Nullable(JsonObject),
  active: Type.Boolean(),
  owner_principal_id: Nullable(Uuid),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const MembershipOut = Type.Object({
  id: Uuid,
  organization_id: Uuid,
  principal_id: Uuid,
  role: Type.String(),
  permissions: Nullable(Type.Array(Type.String())),
  active: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const Role = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$' });
const Permissions = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 200 });

const BrandColor = Type.String({
  maxLength: 20,
  description:
    "The colour (#rrggbb) of the sign-in and consent pages' buttons and links for a request naming the organization (before the app's); white text on it must reach 4.5:1 (WCAG AA), else 400 saying the ratio.",
});
const NewOrganization = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.String({ minLength: 1, maxLength: 63 }),
    org_type: Type.Optional(OrgType),
    logo_url: Type.Optional(LogoUrl),
    brand_color: Type.Optional(BrandColor),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    website_url: Type.Optional(Url),
    settings: Type.Optional(JsonObject),
    owner_principal_id: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
const OrganizationChanges = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    slug: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
    org_type: Type.Optional(OrgType),
    logo_url: Type.Optional(Nullable(LogoUrl)),
    brand_color: Type.Optional(Nullable(BrandColor)),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    website_url: Type.Optional(Nullable(Url)),
    settings: Type.Optional(Nullable(JsonObject)),
    owner_principal_id: Type.Optional(Nullable(Uuid)),
    active: Type.Optional(Type.Boolean({ description: 'false deactivates the organization (it is never deleted).' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

const NewMembership = Type.Object(
  { principal_id: Uuid, role: Type.Optional(Role), permissions: Type.Optional(Permissions) },
  { additionalProperties: false },
);
const MembershipChanges = Type.Object(
  {
    role: Type.Optional(Role),
    permissions: Type.Optional(Nullable(Permissions)),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

const tags = ['management'];
const security = Security;
const OrgParams = Type.Object({ id: Uuid });
const MemberParams = Type.Object({ id: Uuid, principalId: Uuid });

/** Organizations and memberships under /api/v1/organizations (each route declares ADMIN access). */
export async function registerOrganizationRoutes(scope: TypedScope, deps: { db: Database }): Promise<void> {
  createOrganizationRoute(scope, deps);
  listOrganizationsRoute(scope, deps);
  getOrganizationRoute(scope, deps);
  updateOrganizationRoute(scope, deps);
  addMemberRoute(scope, deps);
  listMembersRoute(scope, deps);
  getMemberRoute(scope, deps);
  updateMemberRoute(scope, deps);
  removeMemberRoute(scope, deps);
}

function createOrganizationRoute(scope: TypedScope, deps: { db: Database }): void {
  scope.post(
    '/organizations',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'createOrganization',
        tags,
        security,
        summary: 'Create an organization',
        body: NewOrganization,
        response: { 201: OrganizationOut, ...Errors },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const o = await createOrganization(deps.db, {
        name: b.name,
        slug: b.slug,
        orgType: b.org_type,
        logoUrl: checkLogoUrl(b.logo_url),
        brandColor: typeof b.brand_color === 'string' ? checkBrandColor(b.brand_color) : b.brand_color,
        description: b.description,
        websiteUrl: b.website_url,
        settings: b.settings,
        ownerPrincipalId: b.owner_principal_id,
      });
      return reply.code(201).send(o);
    },
  );
}

function listOrganizationsRoute(scope: TypedScope, deps: { db: Database }): void {
  scope.get(
    '/organizations',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listOrganizations',
        tags,
        security,
        summary: 'List organizations',
        querystring: Type.Object(
          { ...Page.properties, org_type: Type.Optional(OrgType), active: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 200: pageOf(OrganizationOut), ...Errors },
      },
    },
    async (request) => {
      const q = request.query;
      const rows = await listOrganizations(deps.db, {
        orgType: q.org_type,
        active: q.active,
        limit: q.limit + 1,
        after: decodeCursor(q.cursor, ById)?.[0],
      });
      return toPage(rows, q.limit, (o) => [o.id]);
    },
  );
}

function getOrganizationRoute(scope: TypedScope, deps: { db: Database }): void {
  scope.get(
    '/organizations/:id',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'getOrganization',
        tags,
        security,
        summary: 'One organization',
        params: OrgParams,
        response: { 200: OrganizationOut, ...Errors },
      },
    },
    async (request) => existingOrganization(deps.db, request.params.id),
  );
}

function updateOrganizationRoute(scope: TypedScope, deps: { db: Database }): void {
  scope.patch(
    '/organizations/:id',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'updateOrganization',
        tags,
        security,
        summary: 'Change or deactivate an organization',
        params: OrgParams,
        body: OrganizationChanges,
        response: { 200: OrganizationOut, ...Errors },
      },
    },
    async (request) => {
      const b = request.body;
      const o = await updateOrganization(deps.db, request.params.id, {
        name: b.name,
        slug: b.slug,
        orgType: b.org_type,
        logoUrl: checkLogoUrl(b.logo_url),
        brandColor: typeof b.brand_color === 'string' ? checkBrandColor(b.brand_color) : b.brand_color,
        description: b.description,
        websiteUrl: b.website_url,
        settings: b.settings,
        ownerPrincipalId: b.owner_principal_id,
        active: b.active,
      });
      if (!o) throw new HttpError(404, 'NOT_FOUND', `no organization ${request.params.id}`);
      return o;
    },
  );
}

function addMemberRoute(scope: TypedScope, deps: { db: Database }): void {
  scope.post(
    '/organizations/:id/members',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'addMember',
        tags,
        security,
        summary: 'Add a principal to an organization (one membership per pair; 409 if it exists)',
        params: OrgParams,
        body: NewMembership,
        response: { 201: MembershipOut, ...Errors },
      },
    },
    async (request, reply) => {
      const org = await existingOrganization(deps.db, request.params.id);
      if (!org.active) throw new HttpError(409, 'CONFLICT', 'the organization is deactivated');
      if (!(await findPrincipal(deps.db, request.body.principal_id)))
        throw new HttpError(404, 'NOT_FOUND', `no principal ${request.body.principal_id}`);
      return reply
        .code(201)
        .send(
          await addMember(
            deps.db,
            org.id,
            request.body.principal_id,
            request.body.role ?? 'member',
            request.body.permissions,
          ),
        );
    },
  );
}

function listMembersRoute(scope: TypedScope, deps: { db: Database }): void {
  scope.get(
    '/organizations/:id/members',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listMembers',
        tags,
        security,
        summary: "An organization's memberships",
        params: OrgParams,
        querystring: Type.Object(
          { ...Page.properties, active: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 200: pageOf(MembershipOut), ...Errors },
      },
    },
    async (request) => {
      await existingOrganization(deps.db, request.params.id);
      const q = request.query;
      const rows = await listMembers(deps.db, request.params.id, {
        active: q.active,
        limit: q.limit + 1,
        after: decodeCursor(q.cursor, ById)?.[0],
      });
      return toPage(rows, q.limit, (m) => [m.principal_id]);
    },
  );
}

function getMemberRoute(scope: TypedScope, deps: { db: Database }): void {
  scope.get(
    '/organizations/:id/members/:principalId',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'getMember',
        tags,
        security,
        summary: 'One membership',
        params: MemberParams,
        response: { 200: MembershipOut, ...Errors },
      },
    },
    async (request) => {
      const m = await findMembership(deps.db, request.params.id, request.params.principalId);
      if (!m) throw new HttpError(404, 'NOT_FOUND', 'no membership of this principal in this organization');
      return m;
    },
  );
}

function updateMemberRoute(scope: TypedScope, deps: { db: Database }): void {
  scope.patch(
    '/organizations/:id/members/:principalId',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'updateMember',
        tags,
        security,
        summary: "Change a membership's role or permissions, or (re)activate it",
        params: MemberParams,
        body: MembershipChanges,
        response: { 200: MembershipOut, ...Errors },
      },
    },
    async (request) => {
      const m = await updateMember(deps.db, request.params.id, request.params.principalId, request.body);
      if (!m) throw new HttpError(404, 'NOT_FOUND', 'no membership of this principal in this organization');
      return m;
    },
  );
}

function removeMemberRoute(scope: TypedScope, deps: { db: Database }): void {
  scope.delete(
    '/organizations/:id/members/:principalId',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'removeMember',
        tags,
        security,
        summary: 'Remove a member: the membership is deactivated, kept on record',
        params: MemberParams,
        response: { 200: MembershipOut, ...Errors },
      },
    },
    async (request) => {
      const m = await updateMember(deps.db, request.params.id, request.params.principalId, { active: false });
      if (!m) throw new HttpError(404, 'NOT_FOUND', 'no membership of this principal in this organization');
      return m;
    },
  );
}
