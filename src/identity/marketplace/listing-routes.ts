import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ById, Errors, Page, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import { MARKET } from '../access/rules.ts';
import { marketCaller, MarketSecurity as security } from '../access/market.ts';
import { LISTING_ACTIONS, LISTING_MOVES, type ListingAction } from './listing-transitions.ts';
import { listListings } from './listing-store.ts';
import { changeListing, listingOf, moveListingBy, moverOf, openListing, visibility } from './records.ts';
import { ListingChanges, ListingOut, ListingStatus, NewListing } from './schemas.ts';

const tags = ['marketplace'];
const ListingParams = Type.Object({ id: Uuid });

/** Listings under /api/v1/listings: create, list, read, change, and move through their statuses (listing-transitions.ts). */
export function registerListingRoutes(scope: TypedScope, db: Database): void {
  createListingRoute(scope, db);
  listListingsRoute(scope, db);
  getListingRoute(scope, db);
  updateListingRoute(scope, db);
  for (const action of LISTING_ACTIONS) moveListingRoute(scope, db, action);
}

function createListingRoute(scope: TypedScope, db: Database): void {
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
      const created = await openListing(db, marketCaller(request), request.body);
      return reply.code(201).send(created);
    },
  );
}

function listListingsRoute(scope: TypedScope, db: Database): void {
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
      const rows = await listListings(db, {
        status: q.status,
        creatorOrgId: q.creator_org_id,
        productType: q.product_type,
        visibleTo: visibility(marketCaller(request)),
        limit: q.limit + 1,
        after: decodeCursor(q.cursor, ById)?.[0],
      });
      return toPage(rows, q.limit, (l) => [l.id]);
    },
  );
}

function getListingRoute(scope: TypedScope, db: Database): void {
  scope.get(
    '/listings/:id',
    {
      config: { access: MARKET },
      schema: {
        operationId: 'getListing',
        tags,
        security,
        summary: 'One listing',
        params: ListingParams,
        response: { 200: ListingOut, ...Errors },
      },
    },
    async (request) => listingOf(db, marketCaller(request), request.params.id),
  );
}

function updateListingRoute(scope: TypedScope, db: Database): void {
  scope.patch(
    '/listings/:id',
    {
      config: { access: MARKET },
      schema: {
        operationId: 'updateListing',
        tags,
        security,
        summary: "Change a listing (its organization's owners and admins)",
        params: ListingParams,
        body: ListingChanges,
        response: { 200: ListingOut, ...Errors },
      },
    },
    async (request) => changeListing(db, marketCaller(request), request.params.id, request.body),
  );
}

function moveListingRoute(scope: TypedScope, db: Database, action: ListingAction): void {
  const move = LISTING_MOVES[action];
  scope.post(
    `/listings/:id/${action}`,
    {
      config: { access: MARKET },
      schema: {
        operationId: `${action}Listing`,
        tags,
        security,
        params: ListingParams,
        summary: `${move.from} → ${move.to}, by ${moverOf(action)}; from any other status 409`,
        response: { 200: ListingOut, ...Errors },
      },
    },
    async (request) => moveListingBy(db, marketCaller(request), request.params.id, action),
  );
}
