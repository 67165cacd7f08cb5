import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ById, Errors, Page, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import { MARKET } from '../access/rules.ts';
import { marketCaller, MarketSecurity as security } from '../access/market.ts';
import { listLicenses } from './license-store.ts';
import { buyLicense, changeLicense, licenseOf, visibility } from './records.ts';
import { LicenseChanges, LicenseOut, NewLicense } from './schemas.ts';

const tags = ['marketplace'];
export const LicenseParams = Type.Object({ id: Uuid });

/** Licenses under /api/v1/licenses: buy, list, read, change (their seats: seat-routes.ts). */
export function registerLicenseRoutes(scope: TypedScope, db: Database): void {
  createLicenseRoute(scope, db);
  listLicensesRoute(scope, db);
  getLicenseRoute(scope, db);
  updateLicenseRoute(scope, db);
}

function createLicenseRoute(scope: TypedScope, db: Database): void {
  scope.post(
    '/licenses',
    {
      config: { access: MARKET },
      schema: {
        operationId: 'createLicense',
        tags,
        security,
        summary: 'Buy a license to a published listing for an organization (its owners and admins); one per pair',
        body: NewLicense,
        response: { 201: LicenseOut, ...Errors },
      },
    },
    async (request, reply) => {
      const created = await buyLicense(db, marketCaller(request), request.body);
      return reply.code(201).send(created);
    },
  );
}

function listLicensesRoute(scope: TypedScope, db: Database): void {
  scope.get(
    '/licenses',
    {
      config: { access: MARKET },
      schema: {
        operationId: 'listLicenses',
        tags,
        security,
        summary: "Licenses the caller may see: their organizations' and those of listings their organizations sell",
        querystring: Type.Object(
          { ...Page.properties, organization_id: Type.Optional(Uuid), listing_id: Type.Optional(Uuid) },
          { additionalProperties: false },
        ),
        response: { 200: pageOf(LicenseOut), ...Errors },
      },
    },
    async (request) => {
      const q = request.query;
      const rows = await listLicenses(db, {
        organizationId: q.organization_id,
        listingId: q.listing_id,
        visibleTo: visibility(marketCaller(request)),
        limit: q.limit + 1,
        after: decodeCursor(q.cursor, ById)?.[0],
      });
      return toPage(rows, q.limit, (x) => [x.id]);
    },
  );
}

function getLicenseRoute(scope: TypedScope, db: Database): void {
  scope.get(
    '/licenses/:id',
    {
      config: { access: MARKET },
      schema: {
        operationId: 'getLicense',
        tags,
        security,
        summary: 'One license',
        params: LicenseParams,
        response: { 200: LicenseOut, ...Errors },
      },
    },
    async (request) => licenseOf(db, marketCaller(request), request.params.id),
  );
}

function updateLicenseRoute(scope: TypedScope, db: Database): void {
  scope.patch(
    '/licenses/:id',
    {
      config: { access: MARKET },
      schema: {
        operationId: 'updateLicense',
        tags,
        security,
        summary: 'Change seats (never below the assigned ones: 409), validity or the payment subscription id',
        params: LicenseParams,
        body: LicenseChanges,
        response: { 200: LicenseOut, ...Errors },
      },
    },
    async (request) => changeLicense(db, marketCaller(request), request.params.id, request.body),
  );
}
