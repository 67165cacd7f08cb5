import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, errorResponses } from '../../kit/errors.ts';
import { ADMIN, ADMIN_SECURITY } from '../access.ts';
import { getDeadLetter } from './dead-letters/store.ts';
import { testSend } from './delivery/test-send.ts';
import { deliveryFigures } from './figures/store.ts';
import type { ForwardingGuard } from './guard.ts';
import { DeadLetterDetail, Figures, TestResult } from './schemas.ts';

const DestinationParams = Type.Object({ destinationId: Type.String() });
const errors = errorResponses(400, 401, 403, 404);
const tags = ['admin: forwarding'];

/**
 * What the console shows of a destination beyond its settings: its delivery figures, a test send, and one dead letter
 * with its event. Under /api/v1, for admins only (ADMIN).
 */
export function registerForwardingInspectRoutes(
  app: App,
  deps: { db: Database; secretKey: Buffer; guard: ForwardingGuard },
): void {
  const { db, secretKey } = deps;
  app.register(
    async (plugin) => {
      const admin = plugin.withTypeProvider<TypeBoxTypeProvider>();

      admin.get(
        '/destinations/:destinationId/figures',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'getDeliveryFigures',
            summary: "A destination's delivery figures: delivered, waiting, retrying and dead events",
            tags,
            security: ADMIN_SECURITY,
            params: DestinationParams,
            response: { 200: Figures, ...errors },
          },
        },
        async (request) => {
          const figures = await deliveryFigures(db, request.params.destinationId);
          if (!figures) throw new HttpError(404, 'NOT_FOUND', `no destination ${request.params.destinationId}`);
          return figures;
        },
      );

      admin.post(
        '/destinations/:destinationId/test',
        {
          config: { access: ADMIN },
          // Nothing to give: a bodyless POST is the request.
          preValidation: async (request) => {
            (request as { body: unknown }).body ??= {};
          },
          schema: {
            operationId: 'testDestination',
            summary:
              'Send one test event (`event.type` platform.test) to the destination now, paused or not, and say what it answered; nothing is queued or counted',
            tags,
            security: ADMIN_SECURITY,
            params: DestinationParams,
            body: Type.Object({}, { additionalProperties: false }),
            response: { 200: TestResult, ...errors },
          },
        },
        async (request) => {
          const result = await testSend(db, secretKey, request.params.destinationId, deps.guard);
          if (!result) throw new HttpError(404, 'NOT_FOUND', `no destination ${request.params.destinationId}`);
          return result;
        },
      );

      admin.get(
        '/destinations/:destinationId/dead-letters/:deadLetterId',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'getDeadLetter',
            summary: 'One dead letter with the event it holds, as received',
            tags,
            security: ADMIN_SECURITY,
            params: Type.Object({
              destinationId: Type.String(),
              deadLetterId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
            }),
            response: { 200: DeadLetterDetail, ...errors },
          },
        },
        async (request) => {
          const { destinationId, deadLetterId } = request.params;
          const letter = await getDeadLetter(db, destinationId, deadLetterId);
          if (!letter)
            throw new HttpError(404, 'NOT_FOUND', `no dead letter ${deadLetterId} of destination ${destinationId}`);
          return letter;
        },
      );
    },
    { prefix: '/api/v1' },
  );
}
