import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import { ById, Errors, Page, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import { MARKET } from '../access/rules.ts';
import { marketCaller, MarketSecurity as security } from '../access/market.ts';
import { listSeats } from './license-store.ts';
import { giveSeat, licenseOf, takeSeat } from './records.ts';
import { LicenseOut, NewSeat, SeatOut } from './schemas.ts';
import { LicenseParams } from './license-routes.ts';

const tags = ['marketplace'];

/** A license's seats under /api/v1/licenses/:id/seats: assign, list, take back. */
export function registerSeatRoutes(scope: TypedScope, db: Database): void {
  assignSeatRoute(scope, db);
  listSeatsRoute(scope, db);
  unassignSeatRoute(scope, db);
}

function assignSeatRoute(scope: TypedScope, db: Database): void {
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
      const created = await giveSeat(db, marketCaller(request), request.params.id, request.body);
      return reply.code(201).send(created);
    },
  );
}

function listSeatsRoute(scope: TypedScope, db: Database): void {
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
      const x = await licenseOf(db, marketCaller(request), request.params.id);
      const q = request.query;
      const rows = await listSeats(db, x.id, { limit: q.limit + 1, after: decodeCursor(q.cursor, ById)?.[0] });
      return toPage(rows, q.limit, (s) => [s.principal_id]);
    },
  );
}

function unassignSeatRoute(scope: TypedScope, db: Database): void {
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
      await takeSeat(db, marketCaller(request), request.params.id, request.params.principalId);
      return reply.code(204).send(null);
    },
  );
}
