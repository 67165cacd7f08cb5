import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import type { InvalidationBus } from '../../kit/invalidation.ts';
import { decodeCursor, pageOf, pageQuery, toPage } from '../../kit/paging.ts';
import { ADMIN } from '../access/rules.ts';
import { Errors, Nullable, Security } from '../api/schemas.ts';
import { rotateSigningKeys } from '../oidc/signing-keys.ts';
import { rotationOut } from './rotation-out.ts';
import { listSigningKeys } from './store.ts';

export interface SigningKeyRouteDeps {
  db: Database;
  secretKey: Buffer;
  issuer: string;
  /** IDENTITY_KEY_REFRESH_SECONDS: how long a new key waits, published, before it signs. */
  propagationSeconds: number;
  /** Rebuilds this instance's provider when the keys changed. */
  reloadKeys(): Promise<boolean>;
  bus: InvalidationBus;
}

/** The bus's channel telling every instance to read the signing keys again. */
const KEYS_CHANGED = 'signing-keys';

const Time = Type.String({ format: 'date-time' });
const KeyOut = Type.Object({
  kid: Type.String(),
  alg: Type.String(),
  created_at: Time,
  retired_at: Nullable(Time),
  publish_until: Nullable(Time),
  state: Type.Union([Type.Literal('signing'), Type.Literal('next'), Type.Literal('retired'), Type.Literal('expired')], {
    description:
      'signing: signs ID tokens now; next: published, signs from `signs_from`; retired: published for verification until `publish_until`; expired: out of the JWKS.',
  }),
  published: Type.Boolean({ description: 'In the JWKS (every instance serves it once it has reloaded).' }),
  served: Type.Boolean({ description: 'In the JWKS this instance serves right now.' }),
  signs_from: Nullable(Time),
});
const KeysPage = Type.Object({
  ...pageOf(KeyOut).properties,
  jwks_uri: Type.String(),
  propagation_seconds: Type.Integer({ description: 'How long a new key waits, published, before it signs.' }),
});
const Rotated = Type.Object({
  kid: Type.String({ description: 'The new key.' }),
  retired: Type.Array(Type.String(), { description: 'The keys it takes over from.' }),
  signs_from: Time,
  immediately: Type.Boolean({
    description:
      'The new key signs at once: verifiers may reject what it signs until they fetch the JWKS again. False: it signs from `signs_from`, once every instance publishes it.',
  }),
});
const Position = Type.Tuple([Type.String({ maxLength: 64 }), Type.String({ minLength: 1, maxLength: 200 })]);

/**
 * `GET /api/v1/signing-keys` and `POST /api/v1/signing-keys/rotate` (ADMIN). A rotation is staged (oidc/signing-keys.ts,
 * the rule `platform identity keys rotate` follows too): the new key is published at once and signs after
 * IDENTITY_KEY_REFRESH_SECONDS, or at once with `immediately` (a compromised key); every instance is told through the
 * invalidation bus to reload (with Redis at once; without, each finds it at its next periodic check).
 */
export async function registerSigningKeyRoutes(app: App, deps: SigningKeyRouteDeps): Promise<void> {
  deps.bus.subscribe(KEYS_CHANGED, () => {
    deps.reloadKeys().catch((err) => app.log.error({ err }, 'signing key reload failed'));
  });
  const served = async (): Promise<Set<string>> => {
    const r = await app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    const body = r.json() as { keys?: { kid?: string }[] };
    return new Set((body.keys ?? []).map((k) => k.kid ?? ''));
  };
  await app.register(
    async (plain) => {
      const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
      scope.get(
        '/signing-keys',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'listSigningKeys',
            tags: ['management'],
            security: Security,
            summary: 'The signing keys, newest first: which signs, which are published in the JWKS, and until when',
            querystring: Type.Object(pageQuery({ defaultLimit: 50, maxLimit: 200 }), { additionalProperties: false }),
            response: { 200: KeysPage, ...Errors },
          },
        },
        async (request) => {
          const { limit, cursor } = request.query;
          const [rows, inJwks] = await Promise.all([
            listSigningKeys(deps.db, { limit: limit + 1, after: decodeCursor(cursor, Position) }),
            served(),
          ]);
          const page = toPage(
            rows,
            limit,
            (k) => k.position,
            ({ position: _, ...k }) => ({ ...k, served: inJwks.has(k.kid) }),
          );
          return {
            ...page,
            jwks_uri: new URL('/.well-known/jwks.json', deps.issuer).href,
            propagation_seconds: deps.propagationSeconds,
          };
        },
      );
      scope.post(
        '/signing-keys/rotate',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'rotateSigningKeys',
            tags: ['management'],
            security: Security,
            summary:
              'Add a signing key: published at once, it signs after IDENTITY_KEY_REFRESH_SECONDS; the current key keeps signing until then and stays published until what it signed has expired',
            description:
              'The body may be left out. `{"immediately": true}` is for a compromised key: the new key signs at once (each instance as it reloads), and a verifier whose copy of the JWKS does not have it yet (cached, or fetched from an instance that has not reloaded) rejects the tokens it signs until it fetches the JWKS again. Recorded in the change log as `signing-key.rotate`, with `immediately` in its details when given.',
            body: Type.Object(
              {
                immediately: Type.Optional(
                  Type.Boolean({
                    description:
                      'Sign with the new key at once instead of after IDENTITY_KEY_REFRESH_SECONDS (default false).',
                  }),
                ),
              },
              { additionalProperties: false },
            ),
            response: {
              200: Rotated,
              ...Errors,
            },
          },
          // Its one field is optional, so a POST without a body is a valid request.
          preValidation: async (request) => {
            if (request.body === undefined || request.body === null) request.body = {};
          },
        },
        async (request) => {
          const r = await rotateSigningKeys(deps.db, deps.secretKey, {
            refreshSeconds: deps.propagationSeconds,
            immediately: request.body.immediately,
          });
          await deps.reloadKeys();
          deps.bus.publish(KEYS_CHANGED, undefined);
          return rotationOut(r);
        },
      );
    },
    { prefix: '/api/v1' },
  );
}
