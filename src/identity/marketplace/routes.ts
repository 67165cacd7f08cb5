import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { MARKET } from '../access/rules.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ById, Errors, Page, Uuid } from '../api/schemas.ts';
import { findOrganization } from '../organizations/store.ts';
import { findPrincipal } from '../principals/view.ts';
import { marketCaller, MarketSecurity, type MarketCaller } from '../access/market.ts';
import { actingPrincipal, isManager, isMember, roleIn } from './permissions.ts';
import { LISTING_ACTIONS, LISTING_MOVES, type ListingAction } from './listing-transitions.ts';
import { createListing, findListing, listListings, moveListing, updateListing, type Listing } from './listing-store.ts';
import {
  assignSeat,
  createLicense,
  findLicense,
  listLicenses,
  listSeats,
  unassignSeat,
  updateLicense,
  type License,
} from './license-store.ts';
import { registerSubscriptionRoutes } from '../billing/subscription-routes.ts';
import {
  LicenseChanges,
  LicenseOut,
  ListingChanges,
  ListingOut,
  ListingStatus,
  NewLicense,
  NewListing,
  NewSeat,
  SeatOut,
} from './schemas.ts';

export interface MarketplaceDeps {
  db: Database;
}

/**
 * Listings, licenses and seats under /api/v1. Every route declares MARKET access (a person's token or a
 * platform admin's, access/rules.ts); authorization is per record, by the caller's memberships:
 * anyone signed in sees published listings, members see their organizations' records, and owners and
 * admins of an organization manage them. What a caller may not see is 404, not 403.
 */
export async function registerMarketplace(app: App, deps: MarketplaceDeps): Promise<void> {
  await app.register(
    async (plain) => {
      const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
      const tags = ['marketplace'];
      const security = MarketSecurity;
      const { db } = deps;

      const forbidden = (what: string) => new HttpError(403, 'FORBIDDEN', what);
      // Once published a listing stays public, archived too: its licenses keep pointing at it.
      const canSeeListing = async (caller: MarketCaller, l: Listing) =>
        l.status === 'published' || l.status === 'archived' || (await isMember(db, caller, l.creator_org_id));
      const listingOf = async (caller: MarketCaller, id: string) => {
        const l = await findListing(db, id);
        if (!l || !(await canSeeListing(caller, l))) throw new HttpError(404, 'NOT_FOUND', `no listing ${id}`);
        return l;
      };
      const canSeeLicense = async (caller: MarketCaller, x: License) => {
        if (await isMember(db, caller, x.organization_id)) return true;
        const seller = (await findListing(db, x.listing_id))?.creator_org_id;
        return seller !== undefined && (await isMember(db, caller, seller));
      };
      const licenseOf = async (caller: MarketCaller, id: string) => {
        const x = await findLicense(db, id);
        if (!x || !(await canSeeLicense(caller, x))) throw new HttpError(404, 'NOT_FOUND', `no license ${id}`);
        return x;
      };
      const visibility = (caller: MarketCaller) =>
        caller.platformAdmin ? undefined : { principalId: caller.principalId };

      scope.post(
        '/listings',
        {
          config: { access: MARKET },
          schema: {
            operationId: 'createListing',
            tags,
            security,
            summary: 'Create a draft listing for an organization (its owners and admins, or a platform admin)',
            body: NewListing,
            response: { 201: ListingOut, ...Errors },
          },
        },
        async (request, reply) => {
          const caller = marketCaller(request);
          const b = request.body;
          const org = await findOrganization(db, b.creator_org_id);
          if (!org || !(await isMember(db, caller, org.id)))
            throw new HttpError(404, 'NOT_FOUND', `no organization ${b.creator_org_id}`);
          if (!(await isManager(db, caller, org.id)))
            throw forbidden('only owners and admins of the organization create its listings');
          if (!org.active) throw new HttpError(409, 'CONFLICT', 'the organization is deactivated');
          const ownerId = actingPrincipal(caller, b.owner_id, 'owner_id');
          if (!(await findPrincipal(db, ownerId)))
            throw new HttpError(400, 'VALIDATION_ERROR', `owner_id: no principal ${ownerId}`);
          return reply.code(201).send(await createListing(db, { ...b, owner_id: ownerId }));
        },
      );

      scope.get(
        '/listings',
        {
          config: { access: MARKET },
          schema: {
            operationId: 'listListings',
            tags,
            security,
            summary: "Listings the caller may see: every published or archived one, and all of their organizations'",
            querystring: Type.Object(
              {
                ...Page.properties,
                status: Type.Optional(ListingStatus),
                creator_org_id: Type.Optional(Uuid),
                product_type: Type.Optional(Type.String({ maxLength: 100 })),
              },
              { additionalProperties: false },
            ),
            response: { 200: pageOf(ListingOut), ...Errors },
          },
        },
        async (request) => {
          const q = request.query;
          const caller = marketCaller(request);
          const rows = await listListings(db, {
            status: q.status,
            creatorOrgId: q.creator_org_id,
            productType: q.product_type,
            visibleTo: visibility(caller),
            limit: q.limit + 1,
            after: decodeCursor(q.cursor, ById)?.[0],
          });
          return toPage(rows, q.limit, (l) => [l.id]);
        },
      );

      scope.get(
        '/listings/:id',
        {
          config: { access: MARKET },
          schema: {
            operationId: 'getListing',
            tags,
            security,
            summary: 'One listing',
            params: Type.Object({ id: Uuid }),
            response: { 200: ListingOut, ...Errors },
          },
        },
        async (request) => listingOf(marketCaller(request), request.params.id),
      );

      scope.patch(
        '/listings/:id',
        {
          config: { access: MARKET },
          schema: {
            operationId: 'updateListing',
            tags,
            security,
            summary: "Change a listing (its organization's owners and admins)",
            params: Type.Object({ id: Uuid }),
            body: ListingChanges,
            response: { 200: ListingOut, ...Errors },
          },
        },
        async (request) => {
          const caller = marketCaller(request);
          const l = await listingOf(caller, request.params.id);
          if (!(await isManager(db, caller, l.creator_org_id)))
            throw forbidden('only owners and admins of the creator organization change a listing');
          const changed = await updateListing(db, l.id, request.body);
          if (!changed) throw new HttpError(404, 'NOT_FOUND', `no listing ${l.id}`);
          return changed;
        },
      );

      for (const action of LISTING_ACTIONS) {
        const move = LISTING_MOVES[action];
        const who =
          move.by === 'reviewer'
            ? 'a platform admin'
            : "the creator organization's owners and admins (or a platform admin)";
        scope.post(
          `/listings/:id/${action}`,
          {
            config: { access: MARKET },
            schema: {
              operationId: `${action}Listing`,
              tags,
              security,
              params: Type.Object({ id: Uuid }),
              summary: `${move.from} → ${move.to}, by ${who}; from any other status 409`,
              response: { 200: ListingOut, ...Errors },
            },
          },
          async (request) => {
            const caller = marketCaller(request);
            const l = await listingOf(caller, request.params.id);
            if (!(await mayMove(caller, action, l))) throw forbidden(`only ${who} may ${action} a listing`);
            return moveListing(db, l.id, move);
          },
        );
      }
      const mayMove = async (caller: MarketCaller, action: ListingAction, l: Listing) =>
        LISTING_MOVES[action].by === 'reviewer' ? caller.platformAdmin : isManager(db, caller, l.creator_org_id);

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
          const caller = marketCaller(request);
          const b = request.body;
          await listingOf(caller, b.listing_id);
          const org = await findOrganization(db, b.organization_id);
          if (!org || !(await isMember(db, caller, org.id)))
            throw new HttpError(404, 'NOT_FOUND', `no organization ${b.organization_id}`);
          if (!(await isManager(db, caller, org.id)))
            throw forbidden('only owners and admins of the organization buy its licenses');
          if (!org.active) throw new HttpError(409, 'CONFLICT', 'the organization is deactivated');
          const buyer = actingPrincipal(caller, b.purchased_by, 'purchased_by');
          if (!(await findPrincipal(db, buyer)))
            throw new HttpError(400, 'VALIDATION_ERROR', `purchased_by: no principal ${buyer}`);
          return reply.code(201).send(await createLicense(db, { ...b, purchased_by: buyer }));
        },
      );

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

      const LicenseParams = Type.Object({ id: Uuid });
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
        async (request) => licenseOf(marketCaller(request), request.params.id),
      );

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
        async (request) => {
          const caller = marketCaller(request);
          const x = await licenseOf(caller, request.params.id);
          if (!(await isManager(db, caller, x.organization_id)))
            throw forbidden("only owners and admins of the license's organization change it");
          const changed = await updateLicense(db, x.id, request.body);
          if (!changed) throw new HttpError(404, 'NOT_FOUND', `no license ${x.id}`);
          return changed;
        },
      );

      scope.post(
        '/licenses/:id/seats',
        {
          config: { access: MARKET },
          schema: {
            operationId: 'assignSeat',
            tags,
            security,
            params: LicenseParams,
            body: NewSeat,
            summary:
              "Give a member of the license's organization a seat; 409 when every seat is taken, the principal has one, or the license is not valid now",
            response: { 201: Type.Object({ seat: SeatOut, license: LicenseOut }), ...Errors },
          },
        },
        async (request, reply) => {
          const caller = marketCaller(request);
          const x = await licenseOf(caller, request.params.id);
          if (!(await isManager(db, caller, x.organization_id)))
            throw forbidden("only owners and admins of the license's organization assign its seats");
          const principalId = request.body.principal_id;
          if (!(await findPrincipal(db, principalId)))
            throw new HttpError(404, 'NOT_FOUND', `no principal ${principalId}`);
          if ((await roleIn(db, x.organization_id, principalId)) === undefined)
            throw new HttpError(409, 'CONFLICT', "seats go to active members of the license's organization only");
          const assignedBy = caller.principalId
            ? actingPrincipal(caller, request.body.assigned_by, 'assigned_by')
            : (request.body.assigned_by ?? null);
          return reply.code(201).send(await assignSeat(db, x.id, principalId, assignedBy));
        },
      );

      scope.get(
        '/licenses/:id/seats',
        {
          config: { access: MARKET },
          schema: {
            operationId: 'listSeats',
            tags,
            security,
            summary: "A license's seat assignments",
            params: LicenseParams,
            querystring: Page,
            response: { 200: pageOf(SeatOut), ...Errors },
          },
        },
        async (request) => {
          const x = await licenseOf(marketCaller(request), request.params.id);
          const q = request.query;
          const rows = await listSeats(db, x.id, { limit: q.limit + 1, after: decodeCursor(q.cursor, ById)?.[0] });
          return toPage(rows, q.limit, (s) => [s.principal_id]);
        },
      );

      scope.delete(
        '/licenses/:id/seats/:principalId',
        {
          config: { access: MARKET },
          schema: {
            operationId: 'unassignSeat',
            tags,
            security,
            summary: 'Take a seat back',
            params: Type.Object({ id: Uuid, principalId: Uuid }),
            response: { 204: Type.Null(), ...Errors },
          },
        },
        async (request, reply) => {
          const caller = marketCaller(request);
          const x = await licenseOf(caller, request.params.id);
          if (!(await isManager(db, caller, x.organization_id)))
            throw forbidden("only owners and admins of the license's organization take seats back");
          if (!(await unassignSeat(db, x.id, request.params.principalId)))
            throw new HttpError(404, 'NOT_FOUND', 'this principal holds no seat of this license');
          return reply.code(204).send(null);
        },
      );

      await registerSubscriptionRoutes(scope, { db });
    },
    { prefix: '/api/v1' },
  );
}
